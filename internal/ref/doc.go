// Package ref holds oracles of ttldb written independently of the library,
// from the text of docs/SPEC.md: an independent JSON reading
// (encoding/json's Decoder, token by token), what R2 and R10 say of a
// written document (ExpectDocument), and a reference implementation of
// R14's patch (RefPatch). The root package's fuzz targets (FuzzDocument,
// FuzzPatch, ...) and the conformance suite's model both check the library
// against them.
//
// The package does not import ttldb, so that the root package's internal
// tests can import it: it names the library's sentinel errors by Fault and
// keeps its own copy of R10's limits (the root's tests check that they are
// the library's), and a caller makes the library's patch operations with
// Builders.
package ref

// Fault names one of the library's sentinel errors, as ttldb's errors.go
// does ("ErrInvalidTTL"); a caller maps it to the error.
type Fault string

// The sentinels the oracles name.
const (
	PreconditionFailed  Fault = "ErrPreconditionFailed"
	InvalidTTL          Fault = "ErrInvalidTTL"
	InvalidID           Fault = "ErrInvalidID"
	InvalidPartitionKey Fault = "ErrInvalidPartitionKey"
	InvalidDocument     Fault = "ErrInvalidDocument"
	TooLarge            Fault = "ErrTooLarge"
	InvalidPatch        Fault = "ErrInvalidPatch"
)

// Faults lists the sentinels the oracles name, in the order of ttldb's
// errors.go: a result with several faults lists them in this order.
var Faults = []Fault{PreconditionFailed, InvalidTTL, InvalidID, InvalidPartitionKey, InvalidDocument, TooLarge, InvalidPatch}

// R10's limits and R14's, as SPEC.md states them.
const (
	// MaxDocumentSize is the largest document, in bytes of its compact
	// encoding without _ts and _etag: 2 MiB.
	MaxDocumentSize = 2 << 20
	// MaxDepth is the deepest nesting: the document object is level 1.
	MaxDepth = 128
	// MaxPatchOperations is the most operations a patch holds.
	MaxPatchOperations = 10
)
