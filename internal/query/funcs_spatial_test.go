package query

import (
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// geoParams are GeoJSON objects the spatial tests name; the sample
// corpus's (Azure-Samples/cosmos-db-nosql-query-samples, scripts/st-*) and
// the Learn reference's ST_AREA example come first. Object literals being
// another part of the grammar, they go in as parameters.
var geoParams = map[string]string{
	// st-distance's reference point and seed documents.
	"ref": `{"type":"Point","coordinates":[-122.11758113953535,47.66901087006131]}`,
	"hq":  `{"type":"Point","coordinates":[-122.12826822304672,47.63980239335718]}`,
	"rd":  `{"type":"Point","coordinates":[-96.84368664765994,46.81297794314663]}`,
	// st-within
	"hqPoint": `{"type":"Point","coordinates":[-122.12824857332558,47.6395516675712]}`,
	"campus":  `{"type":"Polygon","coordinates":[[[-122.13236581015025,47.64606476313813],[-122.13221982500913,47.633757091363975],[-122.11840598103835,47.641749416109235],[-122.12061400629656,47.64589264786028],[-122.13236581015025,47.64606476313813]]]}`,
	// st-intersect
	"highway": `{"type":"Polygon","coordinates":[[[-122.13693695285855,47.64996065621003],[-122.1351662656516,47.64627863318731],[-122.13488295569863,47.646326350048696],[-122.1366182291613,47.650016321952904],[-122.13693695285855,47.64996065621003]]]}`,
	"campus2": `{"type":"Polygon","coordinates":[[[-122.14034847687708,47.6494835188378],[-122.14014779899375,47.64625477474044],[-122.13256925774829,47.646207057813655],[-122.13254564858545,47.64941990019193],[-122.14034847687708,47.6494835188378]]]}`,
	// st-isvalid, st-isvaliddetailed
	"valid":   `{"type":"Point","coordinates":[-84.38876194345323,33.75682784306348]}`,
	"invalid": `{"type":"Point","coordinates":[133.75682784306348,-184.38876194345323]}`,
	// The Learn reference's ST_AREA.
	"area": `{"type":"Polygon","coordinates":[[[31.8,-5],[32,-5],[32,-4.7],[31.8,-4.7],[31.8,-5]]]}`,

	// Ours: a square of 2° on the equator, the same clockwise (the rest of
	// the Earth), with a hole, a line across it, one beside it, two
	// squares as a MultiPolygon, points at the poles and the antimeridian.
	"sq":      `{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]]]}`,
	"sqCW":    `{"type":"Polygon","coordinates":[[[0,0],[0,2],[2,2],[2,0],[0,0]]]}`,
	"holed":   `{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]],[[0.5,0.5],[0.5,1.5],[1.5,1.5],[1.5,0.5],[0.5,0.5]]]}`,
	"holeCCW": `{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2],[0,0]],[[0.5,0.5],[1.5,0.5],[1.5,1.5],[0.5,1.5],[0.5,0.5]]]}`,
	"across":  `{"type":"LineString","coordinates":[[-1,1],[3,1]]}`,
	"beside":  `{"type":"LineString","coordinates":[[3,0],[3,2]]}`,
	"inner":   `{"type":"LineString","coordinates":[[0.2,0.2],[0.3,1.8]]}`,
	"multi":   `{"type":"MultiPolygon","coordinates":[[[[0,0],[2,0],[2,2],[0,2],[0,0]]],[[[10,10],[12,10],[12,12],[10,12],[10,10]]]]}`,
	"p11":     `{"type":"Point","coordinates":[1,1]}`,
	"p1_0":    `{"type":"Point","coordinates":[1,0]}`,
	"p0_25":   `{"type":"Point","coordinates":[0.25,0.25]}`,
	"p11_11":  `{"type":"Point","coordinates":[11,11]}`,
	"p5":      `{"type":"Point","coordinates":[5,5]}`,
	"p3alt":   `{"type":"Point","coordinates":[1,1,100]}`,
	"north":   `{"type":"Point","coordinates":[0,90]}`,
	"north2":  `{"type":"Point","coordinates":[135,90]}`,
	"south":   `{"type":"Point","coordinates":[0,-90]}`,
	"am1":     `{"type":"Point","coordinates":[179.5,0]}`,
	"am2":     `{"type":"Point","coordinates":[-179.5,0]}`,
	"amSq":    `{"type":"Polygon","coordinates":[[[179,-1],[-179,-1],[-179,1],[179,1],[179,-1]]]}`,
	"amIn":    `{"type":"Point","coordinates":[180,0]}`,
	"amOut":   `{"type":"Point","coordinates":[0,0.5]}`,
	"cap":     `{"type":"Polygon","coordinates":[[[0,80],[90,80],[180,80],[-90,80],[0,80]]]}`,
	"capS":    `{"type":"Polygon","coordinates":[[[0,-80],[-90,-80],[180,-80],[90,-80],[0,-80]]]}`,
	"eq1":     `{"type":"Point","coordinates":[0,0]}`,
	"eq2":     `{"type":"Point","coordinates":[1,0]}`,

	// Not valid.
	"lon":      `{"type":"Point","coordinates":[181,0]}`,
	"short":    `{"type":"Point","coordinates":[1]}`,
	"open":     `{"type":"Polygon","coordinates":[[[0,0],[2,0],[2,2],[0,2]]]}`,
	"line1":    `{"type":"LineString","coordinates":[[0,0]]}`,
	"noType":   `{"coordinates":[0,0]}`,
	"multiPt":  `{"type":"MultiPoint","coordinates":[[0,0]]}`,
	"badShape": `{"type":"Polygon","coordinates":[0,0]}`,
	"lower":    `{"type":"point","coordinates":[0,0]}`,
	"noCoords": `{"type":"Point"}`,
}

// The spatial functions: the sample corpus's answers, the Learn
// reference's ST_AREA, and the edges: holes, rings given clockwise, a
// MultiPolygon, the poles, the antimeridian, invalid GeoJSON (R13).
func TestFuncsSpatial(t *testing.T) { // R13
	checkFuncs(t, []funcCase{
		// st-within, st-intersect, st-isvalid, st-isvaliddetailed.
		{`ST_WITHIN(@hqPoint, @campus)`, `true`},
		{`ST_INTERSECTS(@highway, @campus2)`, `true`},
		{`ST_ISVALID(@valid)`, `true`},
		{`ST_ISVALID(@invalid)`, `false`},
		{`ST_ISVALIDDETAILED(@valid)`, `{"valid":true}`},
		{`ST_ISVALIDDETAILED(@invalid)`, `{"valid":false,"reason":"Latitude values must be between -90 and 90 degrees."}`},
		// Within and intersects: a hole, a clockwise ring, lines, points.
		{`ST_WITHIN(@p11, @sq)`, `true`},
		{`ST_WITHIN(@p11, @sqCW)`, `false`},
		{`ST_WITHIN(@p5, @sqCW)`, `true`},
		{`ST_WITHIN(@p11, @holed)`, `false`},
		{`ST_WITHIN(@p11, @holeCCW)`, `false`},
		{`ST_WITHIN(@p0_25, @holed)`, `true`},
		{`ST_WITHIN(@p1_0, @sq)`, `true`},
		{`ST_WITHIN(@p3alt, @sq)`, `true`},
		{`ST_WITHIN(@p11_11, @multi)`, `true`},
		{`ST_WITHIN(@p5, @multi)`, `false`},
		{`ST_WITHIN(@inner, @sq)`, `true`},
		{`ST_WITHIN(@inner, @holed)`, `true`},
		{`ST_WITHIN(@across, @sq)`, `false`},
		{`ST_WITHIN(@sq, @p11)`, `false`},
		{`ST_WITHIN(@sq, @sq)`, `true`},
		{`ST_WITHIN(@sq, @holed)`, `false`},
		{`ST_WITHIN(@holed, @sq)`, `true`},
		{`ST_WITHIN(@sq, @multi)`, `true`},
		{`ST_WITHIN(@multi, @sq)`, `false`},
		{`ST_WITHIN(@p11, @p11)`, `true`},
		{`ST_INTERSECTS(@across, @sq)`, `true`},
		{`ST_INTERSECTS(@across, @holed)`, `true`},
		{`ST_INTERSECTS(@beside, @sq)`, `false`},
		{`ST_INTERSECTS(@sq, @p11)`, `true`},
		{`ST_INTERSECTS(@multi, @p5)`, `false`},
		{`ST_INTERSECTS(@p11, @p11)`, `true`},
		{`ST_INTERSECTS(@p11, @p5)`, `false`},
		// The antimeridian and the poles.
		{`ST_WITHIN(@amIn, @amSq)`, `true`},
		{`ST_WITHIN(@amOut, @amSq)`, `false`},
		{`ST_WITHIN(@north, @cap)`, `true`},
		{`ST_WITHIN(@south, @cap)`, `false`},
		{`ST_WITHIN(@south, @capS)`, `true`},
		{`ST_WITHIN(@north, @capS)`, `false`},
		{`ST_DISTANCE(@north, @north2)`, `0`},
		{`ST_DISTANCE(@p11, @sq)`, `0`},
		// Not valid, or not an object: undefined, or false with a reason.
		{`ST_ISVALID(@lon)`, `false`},
		{`ST_ISVALIDDETAILED(@lon)`, `{"valid":false,"reason":"Longitude values must be between -180 and 180 degrees."}`},
		{`ST_ISVALIDDETAILED(@open)`, `{"valid":false,"reason":"A ring must have at least 4 positions, the last the same as the first."}`},
		{`ST_ISVALIDDETAILED(@line1)`, `{"valid":false,"reason":"A LineString must have at least 2 positions."}`},
		{`ST_ISVALIDDETAILED(@short)`, `{"valid":false,"reason":"A position must have 2 or 3 numbers: longitude, latitude and, optionally, altitude."}`},
		{`ST_ISVALID(@noType)`, `false`},
		{`ST_ISVALID(@multiPt)`, `false`},
		{`ST_ISVALID(@badShape)`, `false`},
		{`ST_ISVALID(@lower)`, `false`},
		{`ST_ISVALID(@noCoords)`, `false`},
		{`ST_ISVALID(@multi)`, `true`},
		{`ST_ISVALID(@holed)`, `true`},
		{`ST_ISVALID("Point")`, `-`},
		{`ST_ISVALIDDETAILED(null)`, `-`},
		{`ST_DISTANCE(@invalid, @valid)`, `-`},
		{`ST_WITHIN(@p11, @open)`, `-`},
		{`ST_INTERSECTS(@p11, [1,1])`, `-`},
		{`ST_AREA(@lon)`, `-`},
		{`ST_AREA(c.missing)`, `-`},
		// Points and lines have no area.
		{`ST_AREA(@p11)`, `0`},
		{`ST_AREA(@across)`, `0`},
	}, geoParams)
}

// ST_DISTANCE and ST_AREA in meters on the WGS-84 ellipsoid: the sample
// corpus's st-distance (in km) and the Learn reference's ST_AREA hold to
// within 1e-7, relative, as do distances and areas known by other means
// (R13).
func TestFuncsSpatialMeasures(t *testing.T) { // R13
	for _, tc := range []struct {
		expr string
		want float64
		tol  float64 // relative
	}{
		{`ST_DISTANCE(@hq, @ref)`, 3.345269817267368 * 1000, 1e-7},
		{`ST_DISTANCE(@ref, @rd)`, 1907.438421299902 * 1000, 1e-7},
		{`ST_AREA(@area)`, 735970283.0522614, 1e-9},
		// A degree of the equator, and the meridian from pole to pole
		// (known values of the ellipsoid).
		{`ST_DISTANCE(@eq1, @eq2)`, 111319.49079327357, 1e-9},
		{`ST_DISTANCE(@north, @south)`, 2 * 10001965.729, 1e-7},
		// Across the antimeridian: one degree of the equator, not 359.
		{`ST_DISTANCE(@am1, @am2)`, 111319.49079327357, 1e-9},
		// A point to a polygon, a line and a MultiPolygon: to the nearest
		// edge (a degree of longitude at the equator, from (3,1) to x = 2,
		// close to it).
		{`ST_DISTANCE(@beside, @sq)`, 111319.49, 1e-3},
		{`ST_DISTANCE(@p5, @multi)`, 471000, 0.01},
		// A square around the north pole at 80° (79.956° authalic): four
		// triangles with the pole, each of tan(E/2) = tan²(r/2) by
		// L'Huilier, r its colatitude; the same ring around the south pole.
		{`ST_AREA(@cap)`, 2.5074394581031753e12, 1e-9},
		{`ST_AREA(@capS)`, 2.5074394581031753e12, 1e-9},
		// Across the antimeridian: the square of 2° there is the one at 0°.
		{`ST_AREA(@amSq)`, 49231550683.9914 * 1, 1e-3},
		// A hole's area is taken off: a quarter of the square's.
		{`ST_AREA(@holed)`, 0.75 * 49225e6, 0.01},
	} {
		got, err := strconv.ParseFloat(evalFunc(t, tc.expr, geoParams), 64)
		require.NoError(t, err, tc.expr)
		require.InDelta(t, 0, got/tc.want-1, tc.tol, "%s = %v, want %v", tc.expr, got, tc.want)
	}
	sq, err := strconv.ParseFloat(evalFunc(t, `ST_AREA(@sq)`, geoParams), 64)
	require.NoError(t, err)
	total, err := strconv.ParseFloat(evalFunc(t, `ST_AREA(@sqCW)`, geoParams), 64)
	require.NoError(t, err)
	// The clockwise square is the rest of the Earth (510065621.7 km²).
	require.InDelta(t, 510065621724088.4, sq+total, 1e-6*510065621724088.4, "a ring's two sides make the Earth")
	require.InDelta(t, 49225e6, sq, 0.01*49225e6, "2° by 2° on the equator")
	require.False(t, math.IsNaN(sq))
}

// The sample corpus's st-distance seed documents, filtered and projected
// by the distance from its reference point, read from each document's
// location (R13).
func TestFuncsSpatialOnDocuments(t *testing.T) { // R13
	rows := []Row{
		{Body: `{"id":"7489042854","name":"Headquarters","location":{"type":"Point","coordinates":[-122.12826822304672,47.63980239335718]},"category":"business-offices"}`, TS: 1, ETag: "e"},
		{Body: `{"id":"6878613356","name":"Research and development","location":{"type":"Point","coordinates":[-96.84368664765994,46.81297794314663]},"category":"business-offices"}`, TS: 1, ETag: "e"},
		{Body: `{"id":"x","name":"Nowhere","location":{"type":"Point","coordinates":[0,91]}}`, TS: 1, ETag: "e"},
	}
	ref := map[string]string{"ref": geoParams["ref"]}
	require.Equal(t, `"Headquarters"`, results(bind(t, `SELECT VALUE o.name FROM offices o WHERE ST_DISTANCE(o.location, @ref) < 5000`, ref), rows))
	require.Equal(t, `"Research and development"`, results(bind(t, `SELECT VALUE o.name FROM offices o WHERE ST_DISTANCE(o.location, @ref) > 5000`, ref), rows))
	require.Equal(t, `{"name":"Headquarters","v":true}`+"\n"+`{"name":"Research and development","v":true}`+"\n"+`{"name":"Nowhere","v":false}`,
		results(bind(t, `SELECT o.name, ST_ISVALID(o.location) AS v FROM offices o`, nil), rows))
}
