package query

import (
	"encoding/json"
	"math"
	"strconv"
)

// spatialFuncs are the spatial functions, on GeoJSON Point, LineString,
// Polygon (its first ring the outer, the others holes) and MultiPolygon
// objects, in WGS-84 longitude and latitude. A geometry that is not valid
// (ST_ISVALIDDETAILED says why) makes them undefined, as the reference
// says ("invalid geometries are equivalent to undefined"), and so does an
// argument that is no object.
var spatialFuncs = []*funcDef{
	{"ST_DISTANCE", 2, 2, geo2(func(a, b *geometry) val { return numVal(distance(a, b)) })},
	{"ST_WITHIN", 2, 2, geo2(func(a, b *geometry) val { return boolVal(within(a, b)) })},
	{"ST_INTERSECTS", 2, 2, geo2(func(a, b *geometry) val { return boolVal(intersects(a, b)) })},
	{"ST_AREA", 1, 1, fnSTArea},
	{"ST_ISVALID", 1, 1, fnSTIsValid},
	{"ST_ISVALIDDETAILED", 1, 1, fnSTIsValidDetailed},
}

// geometry is a valid GeoJSON geometry: its points, its edges as rings or
// lines of unit vectors, its polygons.
type geometry struct {
	points []lonLat   // a Point's one; a LineString's vertices
	line   []vec      // a LineString's vertices; nil for other kinds
	polys  []geoPoly  // a Polygon's one, a MultiPolygon's
	all    [][]vec    // every line and ring, for edge tests
	verts  []lonLat   // every vertex
	kind   string     // the GeoJSON type
	rings  [][]lonLat // every ring, in order, for the area
}

// geoPoly is a polygon: its outer ring and holes, each closed, with the
// area to the left of each ring (leftArea).
type geoPoly struct {
	rings [][]vec
	areas []float64
}

// Reasons a geometry is not valid. The first is the service's (the sample
// corpus's st-isvaliddetailed); the others are ours, in its manner.
const (
	reasonLat    = "Latitude values must be between -90 and 90 degrees."
	reasonLon    = "Longitude values must be between -180 and 180 degrees."
	reasonType   = "The type must be Point, LineString, Polygon or MultiPolygon."
	reasonCoords = "The coordinates do not have the shape the type needs."
	reasonPos    = "A position must have 2 or 3 numbers: longitude, latitude and, optionally, altitude."
	reasonLine   = "A LineString must have at least 2 positions."
	reasonRing   = "A ring must have at least 4 positions, the last the same as the first."
	reasonEmpty  = "A Polygon must have at least one ring, and a MultiPolygon one Polygon."
)

// parseGeometry reads v as GeoJSON; reason says why it is not valid.
func parseGeometry(v val) (g *geometry, reason string) {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(v.Raw), &m) != nil {
		return nil, reasonType
	}
	var kind string
	if json.Unmarshal(m["type"], &kind) != nil {
		return nil, reasonType
	}
	raw := m["coordinates"]
	g = &geometry{kind: kind}
	var err error
	switch kind {
	case "Point":
		var pos []float64
		if err = json.Unmarshal(raw, &pos); err == nil {
			var p lonLat
			if p, reason = position(pos); reason == "" {
				g.points = []lonLat{p}
				g.verts = g.points
			}
		}
	case "LineString":
		var line [][]float64
		if err = json.Unmarshal(raw, &line); err == nil {
			reason = g.addLine(line)
		}
	case "Polygon":
		var rings [][][]float64
		if err = json.Unmarshal(raw, &rings); err == nil {
			reason = g.addPolygon(rings)
		}
	case "MultiPolygon":
		var polys [][][][]float64
		if err = json.Unmarshal(raw, &polys); err == nil {
			if len(polys) == 0 {
				reason = reasonEmpty
			}
			for _, rings := range polys {
				if reason == "" {
					reason = g.addPolygon(rings)
				}
			}
		}
	default:
		return nil, reasonType
	}
	if err != nil || raw == nil {
		return nil, reasonCoords
	}
	if reason != "" {
		return nil, reason
	}
	return g, ""
}

// position reads a position: longitude, latitude and an altitude, which
// is ignored.
func position(pos []float64) (lonLat, string) {
	if len(pos) < 2 || len(pos) > 3 {
		return lonLat{}, reasonPos
	}
	if pos[1] < -90 || pos[1] > 90 {
		return lonLat{}, reasonLat
	}
	if pos[0] < -180 || pos[0] > 180 {
		return lonLat{}, reasonLon
	}
	return lonLat{pos[0], pos[1]}, ""
}

// positions reads a list of positions, as lonLats and unit vectors.
func positions(list [][]float64) ([]lonLat, []vec, string) {
	ps, vs := make([]lonLat, len(list)), make([]vec, len(list))
	for i, pos := range list {
		p, reason := position(pos)
		if reason != "" {
			return nil, nil, reason
		}
		ps[i], vs[i] = p, p.unit()
	}
	return ps, vs, ""
}

// addLine adds a LineString's vertices.
func (g *geometry) addLine(line [][]float64) string {
	if len(line) < 2 {
		return reasonLine
	}
	ps, vs, reason := positions(line)
	if reason != "" {
		return reason
	}
	g.points, g.line, g.verts = ps, vs, ps
	g.all = append(g.all, vs)
	return ""
}

// addPolygon adds a polygon of rings.
func (g *geometry) addPolygon(rings [][][]float64) string {
	if len(rings) == 0 {
		return reasonEmpty
	}
	var p geoPoly
	for _, ring := range rings {
		ps, vs, reason := positions(ring)
		if reason != "" {
			return reason
		}
		if len(ring) < 4 || ps[0] != ps[len(ps)-1] {
			return reasonRing
		}
		area := leftArea(ps)
		if len(p.rings) > 0 { // a hole is the smaller side of its ring, whichever way it turns
			area = math.Min(area, 4*math.Pi-area)
		}
		p.rings, p.areas = append(p.rings, vs), append(p.areas, area)
		g.all = append(g.all, vs)
		g.verts = append(g.verts, ps...)
		g.rings = append(g.rings, ps)
	}
	g.polys = append(g.polys, p)
	return ""
}

// contains reports whether p lies in the polygon, its boundary included
// (a hole's edge belongs to the polygon).
func (p *geoPoly) contains(v vec) bool {
	if !inRing(v, p.rings[0], p.areas[0]) {
		return false
	}
	for i, hole := range p.rings[1:] {
		// inside the hole, the smaller side of its ring, whichever way it turns
		if w, on := winding(v, hole); !on && w != 0 && p.areas[i+1] < 2*math.Pi {
			return false
		}
	}
	return true
}

// covers reports whether the point v lies in g: in a polygon, on a line's
// edge, or at the point.
func (g *geometry) covers(v vec) bool {
	for i := range g.polys {
		if g.polys[i].contains(v) {
			return true
		}
	}
	for i := 0; i+1 < len(g.line); i++ {
		if onArc(v, g.line[i], g.line[i+1]) {
			return true
		}
	}
	if g.kind == "Point" {
		d := g.points[0].unit().sub(v)
		return d.dot(d) < geoEps*geoEps
	}
	return false
}

// edgesCross reports whether an edge of a and one of b share a point.
func edgesCross(a, b *geometry) bool {
	for _, la := range a.all {
		for _, lb := range b.all {
			for i := 0; i+1 < len(la); i++ {
				for j := 0; j+1 < len(lb); j++ {
					if arcsCross(la[i], la[i+1], lb[j], lb[j+1]) {
						return true
					}
				}
			}
		}
	}
	return false
}

// intersects reports whether a and b share a point.
func intersects(a, b *geometry) bool {
	if edgesCross(a, b) {
		return true
	}
	for _, p := range a.verts {
		if b.covers(p.unit()) {
			return true
		}
	}
	for _, p := range b.verts {
		if a.covers(p.unit()) {
			return true
		}
	}
	return false
}

// within reports whether every point of a lies in b: its vertices in b,
// and, when b is a polygon, no edge of a crossing b's boundary but at a
// vertex on it.
func within(a, b *geometry) bool {
	for _, p := range a.verts {
		if !b.covers(p.unit()) {
			return false
		}
	}
	if len(b.polys) == 0 {
		return true // a point within a point, or vertices on a line
	}
	for _, la := range a.all {
		for i := 0; i+1 < len(la); i++ {
			// the edge's midpoint stands for it: an edge that leaves b and
			// comes back between two vertices inside has it outside
			mid := la[i].add(la[i+1]).norm()
			if !b.covers(mid) {
				return false
			}
		}
	}
	// b's boundary must not pass inside a (as a hole of b within a does)
	for _, p := range b.verts {
		v := p.unit()
		for i := range a.polys {
			if a.polys[i].contains(v) && !onEdges(v, a.all) {
				return false
			}
		}
	}
	return true
}

// onEdges reports whether v lies on an edge of the lines or rings.
func onEdges(v vec, lines [][]vec) bool {
	for _, l := range lines {
		for i := 0; i+1 < len(l); i++ {
			if onArc(v, l[i], l[i+1]) {
				return true
			}
		}
	}
	return false
}

// distance returns the least distance in meters between a point of a and
// one of b: 0 when they intersect; else the least, over the vertices of
// one and the edges of the other, of the geodesic from the vertex to the
// point of the edge nearest it.
func distance(a, b *geometry) float64 {
	if len(a.verts) == 1 && len(b.verts) == 1 {
		return geodesic(a.verts[0], b.verts[0])
	}
	if intersects(a, b) {
		return 0
	}
	best := math.Inf(1)
	near := func(from, to *geometry) {
		for _, p := range from.verts {
			v := p.unit()
			if len(to.all) == 0 {
				best = math.Min(best, geodesic(p, to.verts[0]))
			}
			for _, l := range to.all {
				for i := 0; i+1 < len(l); i++ {
					best = math.Min(best, geodesic(p, toLonLat(closestOnArc(v, l[i], l[i+1]))))
				}
			}
		}
	}
	near(a, b)
	near(b, a)
	return best
}

// geo2 returns the function of two geometries that is f.
func geo2(f func(a, b *geometry) val) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		x, y := b.arg(e, &r, 0), b.arg(e, &r, 1)
		if x.Kind != Object || y.Kind != Object {
			return undef
		}
		gx, _ := parseGeometry(x)
		gy, _ := parseGeometry(y)
		if gx == nil || gy == nil {
			return undef
		}
		return f(gx, gy)
	}
}

// fnSTArea is ST_AREA(g): the area in square meters of a Polygon or
// MultiPolygon on the WGS-84 ellipsoid (its authalic sphere), less its
// holes; 0 for a Point or a LineString (the reference).
func fnSTArea(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	if x.Kind != Object {
		return undef
	}
	g, _ := parseGeometry(x)
	if g == nil {
		return undef
	}
	total, k := 0.0, 0
	for _, p := range g.polys {
		for i := range p.rings {
			ring := make([]lonLat, len(g.rings[k]))
			for j, pt := range g.rings[k] {
				ring[j] = authalic(pt)
			}
			area := leftArea(ring)
			if i > 0 {
				area = -math.Min(area, 4*math.Pi-area)
			}
			total += area
			k++
		}
	}
	return numVal(total * authalicR * authalicR)
}

// fnSTIsValid is ST_ISVALID(g): whether g is a valid geometry.
func fnSTIsValid(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	if x.Kind != Object {
		return undef
	}
	g, _ := parseGeometry(x)
	return boolVal(g != nil)
}

// fnSTIsValidDetailed is ST_ISVALIDDETAILED(g): {"valid":true}, or
// {"valid":false,"reason":"..."}.
func fnSTIsValidDetailed(b *Bound, e *expr, r Row) val {
	x := b.arg(e, &r, 0)
	if x.Kind != Object {
		return undef
	}
	if _, reason := parseGeometry(x); reason != "" {
		return rawVal(Object, `{"valid":false,"reason":`+strconv.Quote(reason)+`}`)
	}
	return rawVal(Object, `{"valid":true}`)
}
