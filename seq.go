package ttldb

import "github.com/ttldb/ttldb/engine"

// document returns d as a [Document] of the collection.
func (c *Collection) document(d *engine.Doc) Document { return Document{d, c.etagBase} }
