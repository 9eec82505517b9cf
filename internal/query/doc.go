// Package query parses and evaluates a subset of the Azure Cosmos DB NoSQL
// query language on stored documents, compact JSON objects, which it reads
// in place without decoding them whole.
//
// [Parse] turns a query's text into a [Query]; [Query.Bind] gives its
// parameters values, making a [Bound], which tells whether a row matches
// (Match), enumerates the rows of a document's JOIN product (Each), renders
// its result (AppendResult, AppendAggregate, AppendDistinctKey), gives its
// ORDER BY sort key (AppendSortKey), and says which ranges of an index on
// a path can hold the rows that match (Ranges, Paths).
//
// # Grammar
//
// Keywords and function names are case-insensitive; names (the alias,
// members, parameters) are not.
//
//	query    = SELECT [TOP count] [DISTINCT [TOP count]] select [from]
//	           [WHERE expr] [GROUP BY expr {"," expr}]
//	           (a subquery: SELECT [TOP count] [DISTINCT] select [from] [WHERE expr])
//	           [ORDER BY path [ASC|DESC] {"," path [ASC|DESC]}]   (not with GROUP BY)
//	           [OFFSET count LIMIT count]
//	from     = FROM (name {step} [[AS] alias] | alias IN name {step}) {join}
//	join     = JOIN (alias IN name {step} | name {step} [[AS] alias])
//	count    = integer | @param            (0 to 2147483647)
//	select   = "*" | VALUE expr | item {"," item}
//	item     = expr [[AS] name]
//	expr     = coalesce ["?" expr ":" coalesce]
//	coalesce = or {"??" or}
//	or       = and {OR and}
//	and      = not {AND not}
//	not      = NOT not | NOT unary | concat
//	concat   = bitor {"||" bitor}
//	bitor    = bitxor {"|" bitxor}
//	bitxor   = bitand {"^" bitand}
//	bitand   = cmp {"&" cmp}
//	cmp      = shift [cmpop shift
//	                  | [NOT] IN "(" expr {"," expr} ")"
//	                  | [NOT] BETWEEN shift AND shift
//	                  | [NOT] LIKE shift [ESCAPE shift]]
//	cmpop    = "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//	shift    = sum {("<<" | ">>" | ">>>") sum}
//	sum      = product {("+" | "-") product}
//	product  = unary {("*" | "/" | "%") unary}
//	unary    = ("-" | "+" | "~") unary | primary {step | "[" expr "]"}
//	primary  = number | string | TRUE | FALSE | NULL | UNDEFINED | @param
//	         | NaN | Infinity | agg "(" expr ")"   (agg: in a select only)
//	         | EXISTS "(" subquery ")" | ARRAY "(" subquery ")" | "(" subquery ")"
//	         | path | function "(" [expr {"," expr}] ")" | "(" expr ")"
//	         | "[" [expr {"," expr}] "]" | "{" [member {"," member}] "}"
//	member   = (name | string) ":" expr
//	agg      = COUNT | SUM | AVG | MIN | MAX
//	path     = alias {step}
//	step     = "." name | "[" integer "]" | "[" string "]"
//	comment  = "--" {any character but a line feed or a carriage return}
//	number   = (digits ["." [digits]] | "." digits) [("e"|"E") ["+"|"-"] digits]
//	string   = "'" chars "'" | '"' chars '"'   (escapes \' \" \\ \/ \b \f \n \r \t \uXXXX)
//	function = IS_DEFINED | IS_NULL | IS_BOOL | IS_NUMBER | IS_STRING
//	         | IS_ARRAY | IS_OBJECT | IS_PRIMITIVE | IS_FINITE_NUMBER
//	         | IS_INTEGER | IIF | CHOOSE
//	         | ABS | ACOS | ASIN | ATAN | ATN2 | CEILING | COS | COT | DEGREES
//	         | EXP | FLOOR | LOG | LOG10 | NUMBERBIN | PI | POWER | RADIANS
//	         | RAND | ROUND | SIGN | SIN | SQRT | SQUARE | TAN | TRUNC
//	         | INTADD | INTSUB | INTMUL | INTDIV | INTMOD | INTBITAND
//	         | INTBITOR | INTBITXOR | INTBITNOT | INTBITLEFTSHIFT
//	         | INTBITRIGHTSHIFT
//	         | CONCAT | CONTAINS | ENDSWITH | INDEX_OF | LEFT | LENGTH | LOWER
//	         | LTRIM | REGEXMATCH | REPLACE | REPLICATE | REVERSE | RIGHT
//	         | RTRIM | STARTSWITH | STRINGEQUALS | STRINGJOIN | STRINGSPLIT
//	         | SUBSTRING | TRIM | UPPER
//	         | TOSTRING | STRINGTOARRAY | STRINGTOBOOLEAN | STRINGTONULL
//	         | STRINGTONUMBER | STRINGTOOBJECT
//	         | ARRAY_CONCAT | ARRAY_CONTAINS | ARRAY_CONTAINS_ALL
//	         | ARRAY_CONTAINS_ANY | ARRAY_LENGTH | ARRAY_SLICE | OBJECTTOARRAY
//	         | SETINTERSECT | SETUNION
//	         | GETCURRENTDATETIME | GETCURRENTDATETIMESTATIC | GETCURRENTTICKS
//	         | GETCURRENTTICKSSTATIC | GETCURRENTTIMESTAMP
//	         | GETCURRENTTIMESTAMPSTATIC | DATETIMEADD | DATETIMEBIN
//	         | DATETIMEDIFF | DATETIMEFROMPARTS | DATETIMEPART | DATETIMETOTICKS
//	         | DATETIMETOTIMESTAMP | TICKSTODATETIME | TIMESTAMPTODATETIME
//	         | ST_AREA | ST_DISTANCE | ST_INTERSECTS | ST_ISVALID
//	         | ST_ISVALIDDETAILED | ST_WITHIN | VECTORDISTANCE
//
// The alias is the last name of the FROM clause (FROM c, FROM root r, FROM
// c AS x); every path starts from it, and the alias alone is the whole
// document. FROM a path (FROM c.tags[0] AS t, FROM c.user) makes each
// document's value there a row, which the alias names (without AS, the
// path's last member name); a document without one gives no row, and
// SELECT * gives the value as stored.
//
// JOIN makes each document's rows the cross product of the document with
// the values of its sources, in order (the first source's values, and for
// each the next source's...): JOIN t IN c.tags makes a row of each element
// of the array at c.tags, JOIN c.user u one of the value there; a source
// starts from the document's alias or from a source's before it (JOIN v IN
// t.values), and a value that is undefined, or for IN no array, makes no
// row, so that the document gives none. FROM t IN c.tags is FROM c JOIN t
// IN c.tags but that the container's name c is no alias. SELECT * needs a
// FROM clause of one alias (FROM c, FROM t IN c.tags: the element): with
// JOIN it is refused, as the service refuses it. The aliases are distinct.
// The terms of the WHERE clause's top-level AND that name only the
// document are Match's, tested once a document (and served by indexes);
// the others Each's, tested on each row. ORDER BY takes the document's
// paths only. A document's product is bounded: beyond MaxJoinRows rows
// (those of each source counted, the last's and the ones before), Each
// fails rather than run on, and at most MaxJoins sources join.
//
// A subquery, EXISTS(SELECT ...), ARRAY(SELECT ...) or (SELECT ...), is
// an expression, correlated with the row it is evaluated for: its FROM
// clause (FROM t IN c.tags, FROM c.user u, and JOINs) iterates values of
// the outer aliases, its paths name its aliases and the outer ones
// (resolveSubs, once the outer FROM is read), and its rows are the outer
// row's binds with its own after them (Query.base). EXISTS is true when
// it gives a result, ARRAY the array of its results, a scalar subquery its
// first result (undefined for none). It takes TOP, DISTINCT, WHERE and
// aggregates in any expression of its SELECT clause (its own Query.aggs:
// one result of its rows). Its rows count against the MaxJoinRows of its
// document, one budget (Row.budget) that the document's product and every
// subquery evaluated for it share, at any depth; beyond it, or beyond
// MaxSubqueryBytes of an ARRAY or scalar subquery's results, the error is
// recorded on the budget, the value is undefined, and Match, Each and
// AppendResult's caller reads the error from Row.Err (Each returns it).
//
// SELECT DISTINCT keeps one result of those equal as = compares them (1
// and 1.0, objects in any member order); AppendDistinctKey gives the key
// that tells them apart, and orders them when no ORDER BY does (scalars as
// ORDER BY sorts them, then arrays, then objects; a projection without a
// member, {}, first). DISTINCT does not go with SELECT *; with GROUP BY
// it keeps the first group of equal results, in the groups' order; with
// an aggregate, whose result is one, it changes nothing.
//
// A query without FROM has one row and
// no document: no path, and no SELECT *; it gives at most one result. The binary operators bind as
// in Cosmos's grammar, tightest first: * / %, + -, the shifts (placed as
// in JavaScript, since Cosmos's published grammar leaves them out), the
// comparisons, &, ^, |, ||; then AND, OR, ?? and ?:. Where Cosmos DB's
// reading differs from SQL's or C's the query is refused, so that neither
// reading surprises anyone: comparisons do not chain (a = b = c: put one
// in parentheses); NOT goes before an operator only in parentheses (Cosmos
// DB reads NOT a = b as (NOT a) = b, SQL as NOT (a = b)); a comparison is
// no operand of &, ^, | or || (Cosmos reads a || b = c as a || (b = c));
// ?: does not chain in its last operand (Cosmos reads a ? b : c ? d : e as
// (a ? b : c) ? d : e), and ?? is no operand of ?: but in parentheses. A
// comment, -- to the end of the line, is white space (outside strings: 1--1
// is 1); /* is refused, as the service refuses it. An object literal names
// each member once. TOP and OFFSET ... LIMIT do not go together. ORDER BY
// with aggregates and no GROUP BY is checked and then dropped: the one
// result is the same in any order. Projected members are named by AS, else by the last member name
// of their path (the alias alone: by the alias), else $1, $2... among the
// unnamed items in order. ORDER BY takes paths of the document and
// VECTORDISTANCE only, refusing what the service refuses (orderby.go).
//
// An aggregate stands in any expression of the SELECT clause (SELECT
// VALUE COUNT(1) * 2, SELECT {n: COUNT(1), s: SUM(c.x)}), never in another
// clause nor inside another aggregate's argument (aggexpr.go). Outside the
// aggregates' arguments an item reads a row only through GROUP BY's
// expressions, as written (parentheses aside), which it may use in any
// expression (SELECT VALUE {team: c.team, n: COUNT(1)} ... GROUP BY
// c.team); without GROUP BY not at all, the query giving one result of
// all its rows: SELECT c.id, COUNT(1) FROM c is refused, naming c.id, as
// the service refuses it. ORDER BY does not go with GROUP BY, as the
// service has it.
//
// NaN and Infinity are literals (the samples tostring and stringtonumber
// use them), spelled as JavaScript does, where no alias has that name.
//
// A JOIN's source may be a subquery (joinsub.go): JOIN (SELECT ...)
// [[AS] x] a row for each result, JOIN x IN (SELECT ...) one for each
// element of each result that is an array.
//
// FROM (SELECT ... FROM c) x reads each document's results of the inner
// query in turn; with DISTINCT, TOP or an aggregate inside, whose results
// are the container's, the inner query reads every document at once, the
// elements of the one row the caller makes of them (Bound.Whole,
// fromsub.go).
//
// A property or an index computed by an expression, expr[expr] (c[@p],
// c[CONCAT("a", "b")], c.tags[ARRAY_LENGTH(c.tags) - 1]), is an xIndex: a
// string names an object's member, an integer from 0 an array's element,
// anything else is undefined. The service's grammar takes it after any
// primary expression (the .NET SDK's sql.g4: MemberIndexerScalarExpression);
// its path being unknown at Parse, no index serves it and ORDER BY does not
// take it; a FROM or JOIN source's path takes literal steps only, as the
// service's grammar has it.
//
// Refused as not supported ([Error].Unsupported), each error saying why:
// subqueries over
// a container elsewhere (the service takes correlated subqueries only, the
// Learn page subquery), with GROUP BY (the service refuses one under an
// aggregate, the Learn page GROUP BY) or SELECT * (unobserved); ORDER BY
// and OFFSET in a subquery (the service's SC2202 and SC2204);
// user-defined functions (udf.f), DOCUMENTID (it reads the service's
// internal _rid, which ttldb has not), ORDER BY with GROUP BY ("You can't
// use GROUP BY with an ORDER BY clause", the Learn page GROUP BY), a
// subquery outside an aggregate's argument in a query with aggregates or
// GROUP BY (the Learn page GROUP BY takes its expressions, aggregates and
// constants in SELECT; the one result has no document to read), ORDER BY
// c[@p], SELECT * with other items (the service's grammar takes * alone).
// docs/SPEC.md (R13, "The forms issue 30 left open, settled") gives the
// evidence for each.
//
// # Semantics
//
// Those of Cosmos DB. Undefined (a missing member, an index out of range,
// a step through a scalar, a member named twice, a string that is no
// Unicode text) is not null. A comparison of values of different kinds, or
// with undefined, is undefined, as is an order between arrays or objects;
// = compares numbers as float64, strings by their bytes, arrays element by
// element and objects member by member in any order. NOT, AND and OR are
// three-valued (false AND undefined is false, true OR undefined is true),
// and WHERE keeps a row only when its condition is exactly true. x IN (a,
// b) is x = a OR x = b; x BETWEEN lo AND hi is x >= lo AND x <= hi. x
// LIKE p (like.go) is the Learn page's: % any string, _ any one
// character, [a-f] or [abc] one of the range or set, [^...] one outside
// it, a wildcard in brackets ([%], [_], [[]) or after the ESCAPE character
// an ordinary one; characters are code points compared exactly (LIKE is
// case-sensitive), and LIKE is undefined unless x and p are strings and
// the escape a string of one character. An index serves the literal
// prefix of a constant pattern, as it serves STARTSWITH.
// Functions given arguments of the wrong kinds are undefined (null
// included), as are those of the sample corpus's examples that the service
// leaves out of its results. Arithmetic
// (+ - * / % and unary - +) takes numbers only, as IEEE doubles (1 / 0 is
// infinity, written null as the service writes it; % keeps the dividend's
// sign); || takes strings only; the bitwise operators (& | ^ << >> >>> ~)
// take numbers and work, as the documentation says, like JavaScript's: on
// the operands made signed 32-bit integers (truncated, modulo 2^32), the
// shift count modulo 32, >>> giving an unsigned result. Operands of other
// kinds, undefined among them, make them undefined. a ? b : c is b when a
// is true, c when false, and undefined when a is no boolean (the
// documentation is silent; IIF, by contrast, takes c). a ?? b is a unless
// a is undefined (null is not). A property or an index of any expression
// ({"a": 1}.a, [1, 2][0]) reads into an array or an object, and is
// undefined for anything else. Array and object literals leave out their
// undefined elements and members, and so does a projection; SELECT VALUE
// of undefined gives no result. Values read from a document are written as
// stored; computed ones as encoding/json writes them.
//
// Aggregates leave out undefined values. COUNT counts the others; SUM and
// AVG add numbers, and are undefined when a value is not one; MIN and MAX
// order null < booleans < numbers < strings (strings by their bytes), and
// are undefined when a value is an array or an object. SUM of no value is
// 0, AVG, MIN and MAX of none undefined: SELECT VALUE then gives no result,
// SELECT SUM(x) AS s gives {}. SUM is the exact sum rounded once, and AVG
// the exact mean, so that the order of the rows does not change them.
// GROUP BY puts the rows with equal values of its expressions in one group
// (undefined is such a value; 1 and 1.0 are equal; arrays and objects by
// their text), which gives one result: its items' values, undefined ones
// left out; the groups come in the order of their values.
//
// # Functions
//
// Each system function is a funcDef (funcs.go): its name, how many
// arguments it takes, and its implementation, listed by family in
// funcs_type.go, funcs_math.go, funcs_int.go, funcs_string.go,
// funcs_regex.go, funcs_convert.go, funcs_array.go, funcs_datetime.go,
// funcs_spatial.go (its geometry in spatial_sphere.go) and
// funcs_vector.go. Their meaning is the
// Learn reference's, and where it is silent that of Microsoft's sample
// corpus (Azure-Samples/cosmos-db-nosql-query-samples, the service's
// answers to its queries), which the tests hold as facts, naming the
// sample. What those leave open, and the choice made:
//
//   - Lengths and positions of strings (LENGTH, INDEX_OF, SUBSTRING, LEFT,
//     RIGHT) count UTF-16 code units: a character beyond U+FFFF counts
//     two. The evidence: the one implementation of the language Microsoft
//     publishes, the .NET SDK's offline query engine (its tests' model of
//     the service), uses .NET strings, which are UTF-16, for all of them,
//     as does JavaScript, which the service runs for stored procedures and
//     UDFs; we found nothing published that counts code points. A cut between the two
//     halves of a pair keeps U+FFFD for the half (the service would keep a
//     lone surrogate, which Go text cannot hold). REVERSE keeps pairs whole.
//     String order stays by bytes (UTF-8), which is code point order.
//   - TOSTRING writes a number with the fewest significant digits that
//     read back, at least 15, laid out as C's %g with that precision and a
//     three-digit exponent: "125", "0.1234" (the samples), and
//     "2.0495371758495027e+018" for 2049537175849502700 (the service's
//     answer recorded in the SDK's offline engine); so 1e21 is "1e+021" and
//     -0 "-0". NaN and infinities are "NaN", "Infinity", "-Infinity".
//   - A NaN or infinite result (SQRT(-1), EXP(1000)) is a number, not
//     undefined: the service holds such numbers (its TOSTRING(NaN) is
//     "NaN", where TOSTRING(undefined) is undefined). IS_FINITE_NUMBER is
//     false for them; a result writes them as null.
//   - The Int functions compute in int64, wrapping on overflow; their
//     results are float64 numbers like any other, rounded beyond 2^53.
//   - LOG, LOG10 and the trigonometric functions are rounded as the
//     service's are (the samples tell Go's math.Log10 and math.Tan apart).
//   - REGEXMATCH takes Go's RE2 syntax for the service's PCRE: a pattern
//     RE2 cannot compile (backreferences, lookaround) is undefined.
//   - A date and time is a string YYYY-MM-DD, optionally followed by
//     Thh:mm, :ss and a fraction of 1 to 7 digits, then optionally Z; an
//     offset from UTC (+01:00) is not taken, as the reference takes UTC
//     strings only. The functions write YYYY-MM-DDThh:mm:ss.fffffffZ,
//     from 0001-01-01 to 9999-12-31 (.NET's DateTime; beyond is
//     undefined). Ticks are 100 ns since the Unix epoch, timestamps
//     milliseconds, cut toward zero; a fraction of a tick given to
//     TicksToDateTime or TimestampToDateTime is dropped. The names of the
//     parts (year, yyyy, yy, month, mm, m...) match in any case.
//     DATETIMEADD of months or years keeps the day or takes the month's
//     last (.NET's AddMonths); DATETIMEDIFF counts the boundaries crossed,
//     as SQL Server's DATEDIFF (the samples: 2018-03-05 to 2019-02-04 is a
//     year).
//   - GETCURRENTDATETIME, GETCURRENTTICKS, GETCURRENTTIMESTAMP and their
//     Static forms read the instant the query was bound at ([Query.BindAt]:
//     the collection's clock), one for all its rows. The service reads the
//     clock again for each row, and for the Static forms once per
//     partition (the samples); a query here sees one snapshot, and one
//     instant is the answer such a reading could give with a coarse clock.
//   - The spatial functions take GeoJSON Point, LineString, Polygon and
//     MultiPolygon objects in WGS-84 degrees; a position may carry an
//     altitude, which is ignored. A geometry that is not valid (a latitude
//     beyond ±90, a longitude beyond ±180, a ring not closed or of fewer
//     than 4 positions, another type) makes them undefined; ST_ISVALID is
//     then false, and ST_ISVALIDDETAILED gives the reason: the latitude's
//     is the service's text (samples), the others ours. Self-intersecting
//     rings are not checked. A polygon is the region left of its outer
//     ring (a ring given clockwise holds the rest of the Earth, as the
//     reference says), less its holes, each the smaller side of its ring
//     whichever way it turns. Edges are great circles through the
//     positions. ST_DISTANCE is in meters on the WGS-84 ellipsoid
//     (Vincenty's geodesic; the samples' distances agree within 4e-8, 8 cm
//     in 1907 km: the service's algorithm is not published), 0 when the
//     geometries meet, else from the nearest vertex to the nearest point of
//     an edge; ST_AREA is in square meters on the ellipsoid, through its
//     authalic sphere (the reference's example agrees within 1e-10), 0 for
//     points and lines. Their cost is the product of the two geometries'
//     numbers of edges.
//   - VECTORDISTANCE takes two arrays of numbers, an optional brute-force
//     boolean (a literal must be one) and optional options, an object
//     literal of the members the reference documents, checked at Parse
//     (distanceFunction cosine, dotproduct or euclidean, in any case;
//     dataType; the search multipliers; filterPriority). Cosine is the
//     default (the service takes it from the container's vector policy,
//     which ttldb has not), in float64 (the service in the dataType,
//     float32 by default). Vectors that are no flat arrays of numbers, of
//     different lengths, or a zero vector's cosine give undefined.
package query
