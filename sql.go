package ttldb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ttldb/ttldb/internal/query"
)

// SQL is a query in the Cosmos DB NoSQL dialect (R13), with its parameters,
// for [Collection.Query] and [Collection.QueryAll]. The zero [SQL] is no
// query: Text or Prepared must be set.
//
// The dialect: SELECT *, VALUE expr, or paths and expressions (with AS);
// SELECT VALUE COUNT(1); TOP n; FROM c; WHERE with = != < <= > >= AND OR
// NOT IN BETWEEN, IS_DEFINED, IS_NULL, STARTSWITH, ENDSWITH, CONTAINS,
// ARRAY_CONTAINS and the IS_ type checks; parameters @name; ORDER BY paths
// ASC or DESC; OFFSET n LIMIT m. Paths: c.a.b, c["odd key"], c.tags[0],
// and steps computed by an expression, c[@p]; -- comments. The package
// documentation lists the whole language.
// Comparing values of different types is undefined, which no WHERE keeps;
// ORDER BY sorts undefined < null < false < true < numbers < strings.
type SQL struct {
	// Text is the query. Ignored when Prepared is set.
	Text string

	// Prepared is a query [Prepare] parsed once, to run many times.
	Prepared *Prepared

	// Params are the values of the query's parameters, by name, with or
	// without the '@'. Each is encoded with encoding/json; a
	// json.RawMessage is taken as it is. Every parameter the query uses
	// needs a value, and every value a parameter.
	Params map[string]any

	// Partition restricts the query to one partition. Nil: all of them.
	Partition *PartitionKey

	// MaxItems is the most results in one page of [Collection.Query]. Zero:
	// all of them.
	MaxItems int

	// Continuation resumes a query after the last result of the page that
	// returned it. Empty: from the start. A token is taken only by the
	// collection that issued it, for the same query, parameters and
	// Partition; MaxItems may change.
	Continuation string
}

// Prepared is a parsed query, to run many times with other parameters. It
// is safe for concurrent use, by any collection; the zero [Prepared] is not
// usable.
type Prepared struct {
	q *query.Query
}

// Prepare parses a query once. It takes O(len(text)).
//
// Errors: [ErrInvalidQuery], as a [*QueryError] that gives the position
// and what was expected there, or says which part of Cosmos SQL is not
// supported.
func Prepare(text string) (*Prepared, error) {
	q, err := query.Parse(text)
	if err != nil {
		return nil, queryError(err)
	}
	return &Prepared{q}, nil
}

// Text returns the query as written.
func (p *Prepared) Text() string { return p.q.Text() }

// Params returns the names of the query's parameters, without '@', in the
// order the query first uses them.
func (p *Prepared) Params() []string { return p.q.Params() }

// QueryError is a query that does not parse: the error at byte Offset of
// the text (Line and Column count from 1, Column in characters). It
// unwraps to [ErrInvalidQuery].
type QueryError struct {
	Offset, Line, Column int
	// Msg says what the parser expected and found, or which part of Cosmos
	// SQL is not supported.
	Msg string
	// Unsupported is set for a part of Cosmos SQL ttldb does not support
	// (JOIN, GROUP BY, user-defined functions...), as opposed to a typo.
	Unsupported bool
}

func (e *QueryError) Error() string {
	return fmt.Sprintf("%v: at line %d, column %d: %s", ErrInvalidQuery, e.Line, e.Column, e.Msg)
}

// Unwrap returns [ErrInvalidQuery].
func (e *QueryError) Unwrap() error { return ErrInvalidQuery }

func queryError(err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		return &QueryError{Offset: qe.Offset, Line: qe.Line, Column: qe.Column, Msg: qe.Msg, Unsupported: qe.Unsupported}
	}
	return errorf(ErrInvalidQuery, "%v", err)
}

// bind parses q (unless prepared) and binds it into b, with its
// parameters as JSON text, which it appends to params[:0] and returns, and
// with now as the instant its current date and time functions read.
func (q SQL) bind(b *query.Bound, params []query.Param, now time.Time) ([]query.Param, error) {
	p := q.Prepared
	if p == nil {
		if q.Text == "" {
			return nil, errorf(ErrInvalidQuery, "the query is empty: set SQL.Text or SQL.Prepared")
		}
		var err error
		if p, err = Prepare(q.Text); err != nil {
			return nil, err
		}
	}
	if p.q == nil {
		return nil, errorf(ErrInvalidQuery, "a zero Prepared: make one with Prepare")
	}
	params = params[:0]
	for name, v := range q.Params {
		if trimmed, ok := strings.CutPrefix(name, "@"); ok {
			// Another name trimmed alike is trimmed itself, which no '@' starts.
			if _, dup := q.Params[trimmed]; dup && !strings.HasPrefix(trimmed, "@") {
				return nil, errorf(ErrInvalidQuery, "parameter @%s is given twice, with and without '@'", trimmed)
			}
			name = trimmed
		}
		if s, ok := v.(string); ok && plainJSON(s) { // its JSON is s in quotes: bound as it is
			params = append(params, query.Param{Name: name, IsStr: true, Str: s})
			continue
		}
		text, err := paramJSON(v)
		if err != nil {
			return nil, errorf(ErrInvalidQuery, "parameter @%s: %v", name, err)
		}
		params = append(params, query.Param{Name: name, JSON: text, Compact: true})
	}
	if err := p.q.BindTo(b, params, now); err != nil {
		return nil, errorf(ErrInvalidQuery, "%v", err)
	}
	return params, nil
}

// paramJSON encodes a parameter's value as compact, valid JSON, as
// encoding/json does; a string of plain characters, and an int, without
// it (one allocation where it makes three).
func paramJSON(v any) (string, error) {
	switch v := v.(type) {
	case string:
		if plainJSON(v) {
			return `"` + v + `"`, nil
		}
	case int:
		return strconv.Itoa(v), nil
	}
	if raw, ok := v.(json.RawMessage); ok {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// plainJSON reports whether s is its own JSON string's contents: printable
// ASCII, no quote or backslash, and none of <, > and & (which
// encoding/json escapes).
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20 || c >= 0x7F, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
}
