package query

import "math"

// The geometry of the spatial functions (funcs_spatial.go): points as unit
// vectors, edges as great-circle arcs between them, on the WGS-84
// ellipsoid for lengths (Vincenty's geodesic) and areas (the authalic
// sphere, whose areas are the ellipsoid's).

// WGS-84, the reference system of the service's GeoJSON.
const (
	wgsA = 6378137.0
	wgsF = 1 / 298.257223563
	wgsB = wgsA * (1 - wgsF)
)

// vec is a point of the unit sphere, or a vector.
type vec struct{ x, y, z float64 }

func (a vec) dot(b vec) float64 { return a.x*b.x + a.y*b.y + a.z*b.z }

func (a vec) cross(b vec) vec {
	return vec{a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x}
}

func (a vec) scale(k float64) vec { return vec{a.x * k, a.y * k, a.z * k} }

func (a vec) sub(b vec) vec { return vec{a.x - b.x, a.y - b.y, a.z - b.z} }

func (a vec) norm() vec {
	n := math.Sqrt(a.dot(a))
	if n == 0 {
		return a
	}
	return a.scale(1 / n)
}

// lonLat is a position: longitude and latitude in degrees.
type lonLat struct{ lon, lat float64 }

// unit returns p on the unit sphere, its latitude taken as spherical.
func (p lonLat) unit() vec {
	lo, la := p.lon*math.Pi/180, p.lat*math.Pi/180
	return vec{math.Cos(la) * math.Cos(lo), math.Cos(la) * math.Sin(lo), math.Sin(la)}
}

// toLonLat is the inverse of unit.
func toLonLat(v vec) lonLat {
	return lonLat{math.Atan2(v.y, v.x) * 180 / math.Pi, math.Atan2(v.z, math.Hypot(v.x, v.y)) * 180 / math.Pi}
}

// geoEps is how close (in radians, about 6 mm on the Earth) a point must be
// to an edge to lie on it.
const geoEps = 1e-9

// onArc reports whether p lies on the arc from a to b (shorter than half a
// great circle).
func onArc(p, a, b vec) bool {
	if p.sub(a).dot(p.sub(a)) < geoEps*geoEps || p.sub(b).dot(p.sub(b)) < geoEps*geoEps {
		return true
	}
	n := a.cross(b)
	if n.dot(n) < geoEps*geoEps { // a and b are one point
		return false
	}
	n = n.norm()
	if math.Abs(p.dot(n)) > geoEps {
		return false
	}
	return a.cross(p).dot(n) >= 0 && p.cross(b).dot(n) >= 0 && p.dot(a.add(b)) > 0
}

func (a vec) add(b vec) vec { return vec{a.x + b.x, a.y + b.y, a.z + b.z} }

// arcsCross reports whether the arcs a-b and c-d share a point.
func arcsCross(a, b, c, d vec) bool {
	if onArc(a, c, d) || onArc(b, c, d) || onArc(c, a, b) || onArc(d, a, b) {
		return true
	}
	n1, n2 := a.cross(b), c.cross(d)
	x := n1.cross(n2)
	if x.dot(x) < geoEps*geoEps*geoEps*geoEps { // one great circle: no touch found above
		return false
	}
	x = x.norm()
	return onArc(x, a, b) && onArc(x, c, d) || onArc(x.scale(-1), a, b) && onArc(x.scale(-1), c, d)
}

// closestOnArc returns the point of the arc a-b nearest p.
func closestOnArc(p, a, b vec) vec {
	n := a.cross(b)
	if n.dot(n) == 0 {
		return a
	}
	n = n.norm()
	q := p.sub(n.scale(p.dot(n))) // p's projection on the arc's plane
	if q.dot(q) > 0 {
		q = q.norm()
		if onArc(q, a, b) || a.cross(q).dot(n) >= 0 && q.cross(b).dot(n) >= 0 {
			return q
		}
	}
	if p.dot(a) >= p.dot(b) {
		return a
	}
	return b
}

// winding returns how many times the closed ring winds around p, seen from
// outside the sphere: +1 counter-clockwise, -1 clockwise, 0 not around;
// onEdge when p lies on an edge.
func winding(p vec, ring []vec) (w int, onEdge bool) {
	sum := 0.0
	for i := 0; i+1 < len(ring); i++ {
		a, b := ring[i], ring[i+1]
		if onArc(p, a, b) {
			return 0, true
		}
		sum += math.Atan2(p.dot(a.cross(b)), a.dot(b)-p.dot(a)*p.dot(b))
	}
	return int(math.Round(sum / (2 * math.Pi))), false
}

// leftArea returns the area of the unit sphere to the left of the closed
// ring, from 0 to 4π: the sum of the signed areas between each edge and
// the equator (the tangent formula, exact for small rings), and for a
// ring around a pole, whose longitudes wind once, the hemisphere that sum
// leaves out.
func leftArea(ring []lonLat) float64 {
	s, turn := 0.0, 0.0
	for i := 0; i+1 < len(ring); i++ {
		l1, p1 := ring[i].lon*math.Pi/180, ring[i].lat*math.Pi/180
		l2, p2 := ring[i+1].lon*math.Pi/180, ring[i+1].lat*math.Pi/180
		dl := math.Remainder(l2-l1, 2*math.Pi)
		t1, t2 := math.Tan(p1/2), math.Tan(p2/2)
		s -= 2 * math.Atan2(math.Tan(dl/2)*(t1+t2), 1+t1*t2) // counter-clockwise is positive
		turn += dl
	}
	if int(math.Round(turn/(2*math.Pi)))%2 != 0 {
		s += 2 * math.Pi
	}
	s = math.Mod(s, 4*math.Pi)
	if s < 0 {
		s += 4 * math.Pi
	}
	return s
}

// inRing reports whether p lies in the region of the closed ring: to its
// left (a ring given clockwise holds the rest of the Earth, as the Learn
// reference says), edges included. The winding number says it, but where
// it is 0, p and its antipode lie on one side, which is the region when
// the region is the larger.
func inRing(p vec, ring []vec, area float64) bool {
	w, on := winding(p, ring)
	switch {
	case on:
		return true
	case w > 0:
		return true
	case w < 0:
		return false
	}
	return area > 2*math.Pi
}

// authalic returns p with its latitude made authalic: on the sphere of
// radius authalicR, areas are those of the WGS-84 ellipsoid.
func authalic(p lonLat) lonLat {
	return lonLat{p.lon, math.Asin(authQ(math.Sin(p.lat*math.Pi/180))/authQ(1)) * 180 / math.Pi}
}

// authQ is the q function of the authalic latitude.
func authQ(s float64) float64 {
	e2 := wgsF * (2 - wgsF)
	e := math.Sqrt(e2)
	return (1 - e2) * (s/(1-e2*s*s) - 1/(2*e)*math.Log((1-e*s)/(1+e*s)))
}

// authalicR is the radius of the sphere of the ellipsoid's area.
var authalicR = wgsA * math.Sqrt(authQ(1)/2)

// geodesic returns the length in meters of the shortest path between p
// and q on the WGS-84 ellipsoid (Vincenty's inverse formula). Within a
// degree or so of antipodal, where it does not converge, it takes the
// great circle of the mean radius, within 0.5%.
func geodesic(p, q lonLat) float64 {
	const rad = math.Pi / 180
	if math.Abs(p.lat) == 90 { // a pole's longitude is any
		p.lon = q.lon
	} else if math.Abs(q.lat) == 90 {
		q.lon = p.lon
	}
	L := (q.lon - p.lon) * rad
	u1 := math.Atan((1 - wgsF) * math.Tan(p.lat*rad))
	u2 := math.Atan((1 - wgsF) * math.Tan(q.lat*rad))
	su1, cu1, su2, cu2 := math.Sin(u1), math.Cos(u1), math.Sin(u2), math.Cos(u2)
	lam := L
	for range 200 {
		sl, cl := math.Sin(lam), math.Cos(lam)
		ss := math.Hypot(cu2*sl, cu1*su2-su1*cu2*cl)
		if ss == 0 {
			return 0 // one point
		}
		cs := su1*su2 + cu1*cu2*cl
		sig := math.Atan2(ss, cs)
		sa := cu1 * cu2 * sl / ss
		ca2 := 1 - sa*sa
		c2m := 0.0
		if ca2 != 0 {
			c2m = cs - 2*su1*su2/ca2
		}
		c := wgsF / 16 * ca2 * (4 + wgsF*(4-3*ca2))
		prev := lam
		lam = L + (1-c)*wgsF*sa*(sig+c*ss*(c2m+c*cs*(-1+2*c2m*c2m)))
		if math.Abs(lam-prev) < 1e-13 {
			u2 := ca2 * (wgsA*wgsA - wgsB*wgsB) / (wgsB * wgsB)
			A := 1 + u2/16384*(4096+u2*(-768+u2*(320-175*u2)))
			B := u2 / 1024 * (256 + u2*(-128+u2*(74-47*u2)))
			ds := B * ss * (c2m + B/4*(cs*(-1+2*c2m*c2m)-B/6*c2m*(-3+4*ss*ss)*(-3+4*c2m*c2m)))
			return wgsB * A * (sig - ds)
		}
	}
	return 6371008.8 * math.Acos(math.Max(-1, math.Min(1, p.unit().dot(q.unit()))))
}
