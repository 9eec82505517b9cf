package query

// AppendDistinctKey appends the key of res, a result as JSON, under which
// SELECT DISTINCT counts two results as one: equal keys exactly when the
// values are equal as = compares them (numbers as float64, 1 and 1.0 one;
// objects member by member in any order; arrays element by element). Keys
// order scalars as ORDER BY does, undefined (no member: {}) first; arrays
// and objects after, the shorter before. It takes O(len(res) log m) for an
// object of m members.
func AppendDistinctKey(dst []byte, res []byte) []byte {
	return appendDistinct(dst, stringOf(res))
}

// appendDistinct appends the key of the compact JSON value raw.
func appendDistinct(dst []byte, raw string) []byte {
	v, ok := FromJSON(raw)
	switch {
	case !ok: // a string that is no Unicode text: equal only to itself
		return append(append(append(dst, keyObject+1), raw...), 0)
	case v.Kind == Array:
		dst = append(dst, keyArray)
		Elements(raw, func(elem string) bool {
			dst = appendDistinct(append(dst, 1), elem)
			return true
		})
		return append(dst, 0)
	case v.Kind == Object:
		dst = append(dst, keyObject)
		ms, ok := members(raw)
		if !ok {
			return append(append(append(dst, 0xFF), raw...), 0)
		}
		for _, m := range ms {
			dst = AppendKey(append(dst, 1), Value{Kind: String, Str: m.name})
			dst = appendDistinct(dst, m.raw)
		}
		return append(dst, 0)
	}
	return AppendKey(dst, v)
}
