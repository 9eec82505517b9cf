package conformance

// Projections into objects in the model's queries (R13): a row's id and
// its value at a path, as an object literal or a select list:
//
//	SELECT VALUE {"a": c.id, "b": p} FROM c ...
//	SELECT c.id AS a, p AS b FROM c ...
//
// Each row gives {"a": id, "b": value}, without b where the path is
// undefined: a member of undefined is left out of the object.

import "fmt"

// objectSelect draws an object projection's form, and returns its text
// after SELECT.
func (g *sqlGen) objectSelect() string {
	q := g.q
	q.selPath = g.path(false)
	ps := g.pathSQL(q.selPath)
	if g.h.r.IntN(2) == 0 {
		return fmt.Sprintf(`VALUE {"a": c.id, b: %s}`, ps)
	}
	return "c.id AS a, " + ps + " AS b"
}

// objectOf is the model's result of an object projection of a row of id
// whose value at the path is v.
func objectOf(id string, v jv) jv {
	a := jv{kind: jStr, s: id, raw: jsonString(id)}
	if v.kind == jUndef {
		return jv{kind: jObj, obj: []jMember{{"a", a}}, raw: `{"a":` + a.raw + `}`}
	}
	return jv{kind: jObj, obj: []jMember{{"a", a}, {"b", v}}, raw: `{"a":` + a.raw + `,"b":` + v.raw + `}`}
}
