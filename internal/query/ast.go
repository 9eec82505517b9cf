package query

// Query is a parsed query: its syntax tree, checked, with its parameters
// unbound. It is immutable, and safe for concurrent use.
type Query struct {
	text   string
	params []string // the parameters' names, in order of first use
	sel    selectKind
	items  []item    // selItems: the items; selValue: the expression
	top    limitSpec // TOP
	offset limitSpec // OFFSET
	limit  limitSpec // LIMIT
	where  *expr     // nil: none
	order  []Order
	arrays int     // how many constant array and object literals the expressions hold
	likes  int     // how many LIKEs with a constant pattern and escape the expressions hold
	noFrom bool    // the query has no FROM clause: it reads no document
	aggs   []*expr // the aggregates of the SELECT clause (xAgg), by idx
	from   Path    // FROM c.a.b: the path of each row's value in its document; nil: the document
	group  []*expr // GROUP BY's expressions; nil: none

	joins    []join // JOIN x IN ..., and FROM x IN ...: the aliases after the first, in order
	iter     bool   // FROM x IN c.path: the first alias is the container's, which no other clause names
	distinct bool   // SELECT DISTINCT
	docWhere *expr  // with joins: the WHERE clause's terms that name no alias of a join; else where
	rowWhere *expr  // with joins: its other terms, true or false for each row of a document's product

	subs  []*subquery // the subqueries of its clauses (not theirs), in the order written
	base  int         // a subquery: the aliases of its outer queries' joins, before its own
	sub   bool        // it is a subquery
	outer bool        // a subquery of FROM (SELECT ... FROM c) x: its first source is each document in turn, and it reads no outer alias
	whole bool        // FROM (SELECT DISTINCT|TOP|aggregate ... FROM c) x, on both: the subquery's FROM c iterates every document at once, the elements of the outer query's one row's WholeMember (fromsub.go)
	alias string      // the document's alias, once resolved; "" for a subquery or FROM x IN
}

// subquery is a subquery as parsed: its query, and its paths, which are
// resolved against its own aliases and its outer queries' once all are
// known (a SELECT clause is read before its FROM).
type subquery struct {
	q     *Query
	paths []*expr
}

// join is an alias of a FROM clause's product: x IN src, where src is a
// path from an alias before it.
type join struct {
	alias string
	src   *expr // an xPath, or an xArraySub: a subquery's results, an array (JOIN (SELECT ...) [AS] x)
	each  bool  // x IN src: a row for each element of the array; else one for the value, if defined
	flat  bool  // x IN (SELECT ...): a row for each element of each result that is an array
}

// Params returns the names of the parameters the query uses, without '@',
// in order of first use, each once.
func (q *Query) Params() []string { return append([]string(nil), q.params...) }

// Text returns the text parsed.
func (q *Query) Text() string { return q.text }

// selectKind is the form of a SELECT clause.
type selectKind uint8

const (
	selStar  selectKind = iota // SELECT *
	selValue                   // SELECT VALUE expr
	selItems                   // SELECT expr [AS name], ...
)

// item is an expression of a SELECT clause, and the name of its member in
// each result.
type item struct {
	e    *expr
	name string
	off  int    // where the item starts
	text string // its text, for errors
}

// limitSpec is the number of TOP, OFFSET or LIMIT: a literal, or a
// parameter's.
type limitSpec struct {
	set   bool
	n     int // the literal
	param int // the parameter's index; -1: the literal
}

// Order is an item of an ORDER BY clause: a property path of the
// document, or a VECTORDISTANCE call, ascending or descending.
type Order struct {
	Path Path // the document's path; nil for a VECTORDISTANCE call
	Desc bool // descending; for VECTORDISTANCE, as its distance function's most similar first
	e    *expr
}

// exprKind is the kind of an expression.
type exprKind uint8

const (
	xLit       exprKind = iota // a literal: lit
	xParam                     // a parameter: idx
	xArray                     // an array literal: args; idx numbers it among the constant literals, or -1 when an element is not constant
	xObject                    // an object literal: names, args; idx as xArray's
	xPath                      // a property path: root, path
	xNot                       // NOT args[0]
	xAnd                       // args[0] AND args[1] AND ...
	xOr                        // args[0] OR args[1] OR ...
	xCmp                       // args[0] op args[1]
	xIn                        // args[0] [NOT] IN (args[1:]...)
	xBetween                   // args[0] [NOT] BETWEEN args[1] AND args[2]
	xCall                      // fn(args...)
	xBinary                    // args[0] ops[0] args[1] ops[1] args[2]...: operators of one precedence, left to right
	xUnary                     // uop args[0]: -, + or ~
	xCond                      // args[0] ? args[1] : args[2]
	xCoalesce                  // args[0] ?? args[1] ?? ...
	xMember                    // args[0] followed by the steps of path: a property or an index of any expression
	xExists                    // EXISTS(sub)
	xArraySub                  // ARRAY(sub)
	xScalarSub                 // (sub): its first result
	xAgg                       // an aggregate of args[0] over the rows: agg; idx numbers it among the query's
	xGroupRef                  // the value of GROUP BY's expression idx for the group
	xLike                      // args[0] [NOT] LIKE args[1] [ESCAPE args[2]]; idx numbers a constant pattern (and escape) among the whole query's, or -1
	xIndex                     // args[0][args[1]]: a property or an index computed by an expression
)

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	opEq cmpOp = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

// mirror returns the operator that gives the same result with its operands
// swapped: a < b is b > a.
func (op cmpOp) mirror() cmpOp {
	switch op {
	case opLt:
		return opGt
	case opLe:
		return opGe
	case opGt:
		return opLt
	case opGe:
		return opLe
	}
	return op
}

// expr is an expression of the syntax tree.
type expr struct {
	kind exprKind
	off  int    // where it starts in the text
	op   cmpOp  // xCmp
	not  bool   // xIn, xBetween, xLike: NOT IN, NOT BETWEEN, NOT LIKE
	fn   funcID // xCall
	lit  val    // xLit
	idx  int    // xParam: the parameter's index; xArray, xObject: the constant literal's, or -1
	root string // xPath: the name it starts from, the FROM clause's alias
	bind int    // xPath: the alias root is: 0 the document (FROM c), k the k-th join's element
	path Path   // xPath
	args []*expr

	ops   []binOp  // xBinary: the operator after each operand but the last
	uop   byte     // xUnary: '-', '+' or '~'
	names []string // xObject: the members' names, one per argument
	paren bool     // it was written in parentheses
	agg   aggKind  // xAgg: COUNT, SUM...
	sub   *Query   // xExists, xArraySub, xScalarSub
}

// isConst reports whether e's value is the same for every row: a literal,
// a parameter, or an array or object literal of constants.
func (e *expr) isConst() bool {
	switch e.kind {
	case xLit, xParam:
		return true
	case xArray, xObject:
		return e.idx >= 0
	}
	return false
}

// isComparison reports whether e is a comparison, IN, BETWEEN or LIKE not in
// parentheses.
func (e *expr) isComparison() bool {
	return !e.paren && (e.kind == xCmp || e.kind == xIn || e.kind == xBetween || e.kind == xLike)
}

// isPath reports whether e is a property path below the document's alias.
func (e *expr) isPath() bool { return e.kind == xPath && len(e.path) > 0 && e.bind == 0 }

// val is a value as the evaluator sees it: a Value, with the JSON text it
// was read from, if any.
type val struct {
	Value
	raw  string // the JSON text read from a document, a parameter or a literal; "": computed
	root bool   // the whole document, written with its system properties
}

var (
	undef    = val{}
	trueVal  = val{Value: Value{Kind: Bool, Bool: true}}
	falseVal = val{Value: Value{Kind: Bool}}
)

func boolVal(b bool) val {
	if b {
		return trueVal
	}
	return falseVal
}
