package query

import (
	"math"
	"strings"
)

// VECTORDISTANCE(v1, v2 [, bruteForce [, options]]), as the Learn page
// "VectorDistance" documents it: the similarity score of two vectors,
// arrays of numbers, by the options' distanceFunction: cosine (from -1,
// least similar, to +1), dotproduct (from -inf to +inf, most similar) or
// euclidean (from 0, most similar, to +inf). bruteForce says whether the
// service's ORDER BY may use a vector index; ttldb has none and always
// computes. The options are an object literal of the documented members
// (distanceFunction, dataType, searchListSizeMultiplier,
// quantizedVectorListMultiplier, filterPriority), each a literal; another
// member, or a value outside the documented ones, is refused. The service
// takes the default distance function from the container's vector
// policy; ttldb has none, and takes cosine. The score is computed in
// float64, where the service uses the vectors' dataType (float32 by
// default): the last digits may differ. A vector that is no array of
// numbers (a multi-dimensional one, say, for which the page says the
// function returns no score and no error), vectors of different lengths,
// or a cosine with a zero vector give undefined.

// The distance functions, as a VECTORDISTANCE call's idx holds them.
const (
	vecCosine = iota
	vecDotProduct
	vecEuclidean
)

var vectorFuncs = []*funcDef{{"VECTORDISTANCE", 2, 4, fnVectorDistance}}

func fnVectorDistance(b *Bound, e *expr, r Row) val {
	x, y := vectorOf(b.arg(e, &r, 0)), vectorOf(b.arg(e, &r, 1))
	if x == nil || len(x) != len(y) {
		return undef
	}
	var dot, xx, yy, d2 float64
	for i := range x {
		dot += x[i] * y[i]
		xx += x[i] * x[i]
		yy += y[i] * y[i]
		d2 += (x[i] - y[i]) * (x[i] - y[i])
	}
	switch e.idx {
	case vecDotProduct:
		return numVal(dot)
	case vecEuclidean:
		return numVal(math.Sqrt(d2))
	}
	if xx == 0 || yy == 0 {
		return undef
	}
	return numVal(dot / math.Sqrt(xx*yy))
}

// vectorOf returns the numbers of v, an array of numbers; nil for anything
// else, an empty array included.
func vectorOf(v val) []float64 {
	if v.Kind != Array {
		return nil
	}
	var out []float64
	ok := true
	Elements(v.Raw, func(raw string) bool {
		n, isNum := FromJSON(raw)
		if !isNum || n.Kind != Number {
			ok = false
			return false
		}
		out = append(out, n.Num)
		return true
	})
	if !ok {
		return nil
	}
	return out
}

// checkVectorDistance checks the optional arguments of e, a VECTORDISTANCE
// call, and puts its distance function in e.idx: a literal bruteForce must
// be a boolean, and the options an object literal of the documented
// members, each a literal of a documented value.
func (p *parser) checkVectorDistance(e *expr) error {
	e.idx = vecCosine
	if len(e.args) > 2 {
		if bf := e.args[2]; bf.kind == xLit && bf.lit.Kind != Bool {
			return p.fail(bf.off, "VECTORDISTANCE's third argument says whether to use brute force: true or false, not %s", bf.lit.raw)
		}
	}
	if len(e.args) < 4 {
		return nil
	}
	opts := e.args[3]
	if opts.kind != xObject {
		return p.fail(opts.off, "VECTORDISTANCE's fourth argument is an object literal of options, as {distanceFunction: \"euclidean\"}")
	}
	for i, name := range opts.names {
		a := opts.args[i]
		if a.kind != xLit {
			return p.fail(a.off, "VECTORDISTANCE's option %s takes a literal", name)
		}
		switch name {
		case "distanceFunction":
			switch strings.ToLower(a.lit.Str) {
			case "cosine":
				e.idx = vecCosine
			case "dotproduct":
				e.idx = vecDotProduct
			case "euclidean":
				e.idx = vecEuclidean
			default:
				return p.fail(a.off, "VECTORDISTANCE's distanceFunction is \"cosine\", \"dotproduct\" or \"euclidean\", not %s", a.lit.raw)
			}
			if a.lit.Kind != String {
				return p.fail(a.off, "VECTORDISTANCE's distanceFunction is a string, not %s", a.lit.raw)
			}
		case "dataType":
			switch strings.ToLower(a.lit.Str) {
			case "float32", "float16", "int8", "uint8":
			default:
				return p.fail(a.off, "VECTORDISTANCE's dataType is \"float32\", \"float16\", \"int8\" or \"uint8\", not %s", a.lit.raw)
			}
		case "searchListSizeMultiplier", "quantizedVectorListMultiplier":
			if a.lit.Kind != Number {
				return p.fail(a.off, "VECTORDISTANCE's %s is a number, not %s", name, a.lit.raw)
			}
		case "filterPriority":
		default:
			return p.fail(a.off, "VECTORDISTANCE has no option %q: its options are distanceFunction, dataType, searchListSizeMultiplier, quantizedVectorListMultiplier and filterPriority", name)
		}
	}
	return nil
}
