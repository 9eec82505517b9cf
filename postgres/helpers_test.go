package postgres

import (
	"fmt"
	"strings"
)

// sprint formats its arguments separated by spaces.
func sprint(args ...any) string { return strings.TrimSuffix(fmt.Sprintln(args...), "\n") }
