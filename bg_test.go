package ttldb

import "context"

// bg is the context of the calls of tests that are not about contexts
// (R16): those that are make their own.
var bg = context.Background()
