package query

import "math"

// binOp is an arithmetic, bitwise or string operator.
type binOp uint8

const (
	opMul    binOp = iota // *
	opDiv                 // /
	opMod                 // %
	opAdd                 // +
	opSub                 // -
	opShl                 // <<
	opShr                 // >>
	opShrU                // >>>
	opBitAnd              // &
	opBitXor              // ^
	opBitOr               // |
	opConcat              // ||
)

// Precedence levels of the binary operators, tightest first, as Cosmos's
// grammar has them: * / %, then + -, then the shifts (which its grammar
// leaves out, and which bind as in JavaScript, whose meaning the
// documentation gives them), then the comparisons, then &, ^, | and ||.
const (
	levelMul    = 1
	levelAdd    = 2
	levelShift  = 3 // the comparisons' operands are of this level
	levelBitAnd = 4
	levelBitXor = 5
	levelBitOr  = 6
	levelConcat = 7
)

// binOps are the binary operators by their text, with their levels.
var binOps = map[string]struct {
	op    binOp
	level int
}{
	"*": {opMul, levelMul}, "/": {opDiv, levelMul}, "%": {opMod, levelMul},
	"+": {opAdd, levelAdd}, "-": {opSub, levelAdd},
	"<<": {opShl, levelShift}, ">>": {opShr, levelShift}, ">>>": {opShrU, levelShift},
	"&": {opBitAnd, levelBitAnd}, "^": {opBitXor, levelBitXor}, "|": {opBitOr, levelBitOr},
	"||": {opConcat, levelConcat},
}

// applyBinary returns the value of a op b: for || two strings joined, for the
// others two numbers' result; undefined for operands of other kinds.
func applyBinary(op binOp, a, b val) val {
	if op == opConcat {
		if a.Kind != String || b.Kind != String {
			return undef
		}
		return val{Value: Value{Kind: String, Str: a.Str + b.Str}}
	}
	if a.Kind != Number || b.Kind != Number {
		return undef
	}
	x, y := a.Num, b.Num
	switch op {
	case opMul:
		return numVal(x * y)
	case opDiv:
		return numVal(x / y)
	case opMod:
		return numVal(math.Mod(x, y))
	case opAdd:
		return numVal(x + y)
	case opSub:
		return numVal(x - y)
	case opShl:
		return numVal(float64(toInt32(x) << (toUint32(y) & 31)))
	case opShr:
		return numVal(float64(toInt32(x) >> (toUint32(y) & 31)))
	case opShrU:
		return numVal(float64(toUint32(x) >> (toUint32(y) & 31)))
	case opBitAnd:
		return numVal(float64(toInt32(x) & toInt32(y)))
	case opBitXor:
		return numVal(float64(toInt32(x) ^ toInt32(y)))
	}
	return numVal(float64(toInt32(x) | toInt32(y)))
}

// unary returns the value of op x (-, + or ~): undefined unless x is a
// number.
func unary(op byte, x val) val {
	if x.Kind != Number {
		return undef
	}
	switch op {
	case '-':
		return numVal(-x.Num)
	case '~':
		return numVal(float64(^toInt32(x.Num)))
	}
	return numVal(x.Num)
}

// toUint32 is JavaScript's ToUint32: f truncated, modulo 2^32; 0 for NaN
// and the infinities.
func toUint32(f float64) uint32 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	m := math.Mod(math.Trunc(f), 1<<32)
	if m < 0 {
		m += 1 << 32
	}
	return uint32(m)
}

// toInt32 is JavaScript's ToInt32, which the bitwise operators apply to
// their operands.
func toInt32(f float64) int32 { return int32(toUint32(f)) }

// evalOp returns the value of e, an operator's expression, for r.
func (b *Bound) evalOp(e *expr, r *Row) val {
	switch e.kind {
	case xBinary:
		acc := b.eval(e.args[0], r)
		for i, op := range e.ops {
			if acc.Kind == Undefined {
				return undef
			}
			acc = applyBinary(op, acc, b.eval(e.args[i+1], r))
		}
		return acc
	case xUnary:
		return unary(e.uop, b.eval(e.args[0], r))
	case xCond:
		// A condition that is not a boolean gives undefined (the
		// documentation is silent; IIF takes the second branch).
		c := b.eval(e.args[0], r)
		switch {
		case c.Kind != Bool:
			return undef
		case c.Bool:
			return b.eval(e.args[1], r)
		}
		return b.eval(e.args[2], r)
	case xCoalesce:
		for _, a := range e.args {
			if v := b.eval(a, r); v.Kind != Undefined {
				return v
			}
		}
		return undef
	case xArray, xObject:
		return b.build(e, r)
	case xMember:
		return memberOf(b.eval(e.args[0], r), e.path, r)
	case xIndex:
		return b.index(e, r)
	}
	return undef
}

// memberOf returns the value at path below v, an array or an object (else
// undefined), for r.
func memberOf(v val, path Path, r *Row) val {
	if v.Kind != Array && v.Kind != Object {
		return undef
	}
	if v.root { // (c).x: the document, with its system properties
		return pathVal(r, path)
	}
	raw, ok := lookupIn(v.Raw, path)
	if !ok {
		return undef
	}
	x, ok := FromJSON(raw)
	if !ok {
		return undef
	}
	return val{Value: x, raw: raw}
}

// index returns the value of e, an xIndex, for r: the member of an object
// a string names, or the element of an array at an integer from 0;
// undefined for any other index, as for a literal step that does not apply
// (the .NET SDK's model of the service, its offline engine, fails on a
// negative or fractional index of an array instead: unobserved on the
// service, which we read as undefined, like an index out of range).
func (b *Bound) index(e *expr, r *Row) val {
	v, k := b.eval(e.args[0], r), b.eval(e.args[1], r)
	var s Step
	switch {
	case v.Kind == Object && k.Kind == String:
		s = Step{Name: k.Str}
	case v.Kind == Array && k.Kind == Number && k.Num >= 0 && k.Num == math.Trunc(k.Num) && k.Num <= math.MaxInt32:
		s = Step{Index: int(k.Num), IsIndex: true}
	default:
		return undef
	}
	return memberOf(v, Path{s}, r)
}

// build returns the value of an array or object literal for r: a compact
// JSON text without its undefined elements and members.
func (b *Bound) build(e *expr, r *Row) val {
	if e.idx >= 0 {
		return b.arrays[e.idx]
	}
	return b.compose(e, r)
}

// compose computes the value of an array or object literal for r.
func (b *Bound) compose(e *expr, r *Row) val {
	open, close := byte('['), byte(']')
	if e.kind == xObject {
		open, close = '{', '}'
	}
	raw := []byte{open}
	for i, a := range e.args {
		v := b.eval(a, r)
		if v.Kind == Undefined {
			continue
		}
		if len(raw) > 1 {
			raw = append(raw, ',')
		}
		if e.kind == xObject {
			raw = append(appendString(raw, e.names[i]), ':')
		}
		raw = appendVal(raw, v, r)
	}
	text := string(append(raw, close))
	kind := Array
	if e.kind == xObject {
		kind = Object
	}
	return val{Value: Value{Kind: kind, Raw: text}, raw: text}
}

// isOperator reports whether t is a binary operator, ? or ??: what may
// follow an operand.
func isOperator(t token) bool {
	if t.kind != tPunct {
		return false
	}
	_, bin := binOps[t.text]
	_, cmp := cmpOps[t.text]
	return bin || cmp || t.text == "?" || t.text == "??"
}
