package query

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The date and time functions on the sample corpus's queries (Azure-Samples/
// cosmos-db-nosql-query-samples, scripts/<name>: the service's answers), and
// on the edges the reference names: invalid input is undefined (R13).
func TestFuncsDateTime(t *testing.T) { // R13
	checkFuncs(t, []funcCase{
		// datetimeadd (5 * -5 written -25: arithmetic is another part of the grammar).
		{`DateTimeAdd("yyyy", 1, "2020-07-03T00:00:00.0000000")`, `"2021-07-03T00:00:00.0000000Z"`},
		{`DateTimeAdd("mm", 1, "2020-07-03T00:00:00.0000000")`, `"2020-08-03T00:00:00.0000000Z"`},
		{`DateTimeAdd("dd", 1, "2020-07-03T00:00:00.0000000")`, `"2020-07-04T00:00:00.0000000Z"`},
		{`DateTimeAdd("hh", 1, "2020-07-03T00:00:00.0000000")`, `"2020-07-03T01:00:00.0000000Z"`},
		{`DateTimeAdd("yyyy", -1, "2020-07-03T00:00:00.0000000")`, `"2019-07-03T00:00:00.0000000Z"`},
		{`DateTimeAdd("mm", -1, "2020-07-03T00:00:00.0000000")`, `"2020-06-03T00:00:00.0000000Z"`},
		{`DateTimeAdd("dd", -1, "2020-07-03T00:00:00.0000000")`, `"2020-07-02T00:00:00.0000000Z"`},
		{`DateTimeAdd("hh", -1, "2020-07-03T00:00:00.0000000")`, `"2020-07-02T23:00:00.0000000Z"`},
		{`DateTimeAdd("ss", -25, "2020-07-03T00:00:00.0000000")`, `"2020-07-02T23:59:35.0000000Z"`},
		// datetimebin
		{`DateTimeBin("2021-01-08T18:35:00.0000000", "dd")`, `"2021-01-08T00:00:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.0000000", "hh")`, `"2021-01-08T18:00:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.0000000", "ss")`, `"2021-01-08T18:35:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.0000000", "hh", 5)`, `"2021-01-08T15:00:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.0000000", "dd", 7)`, `"2021-01-07T00:00:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.0000000", "dd", 7, "1601-01-01T00:00:00.0000000")`, `"2021-01-04T00:00:00.0000000Z"`},
		// datetimediff
		{`DateTimeDiff("yyyy", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `-1`},
		{`DateTimeDiff("mm", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `-11`},
		{`DateTimeDiff("dd", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `-336`},
		{`DateTimeDiff("hh", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `-8075`},
		{`DateTimeDiff("ss", "2019-02-04T16:00:00.0000000", "2018-03-05T05:00:00.0000000")`, `-29070000`},
		{`DateTimeDiff("yyyy", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `1`},
		{`DateTimeDiff("mm", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `11`},
		{`DateTimeDiff("dd", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `336`},
		{`DateTimeDiff("hh", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `8075`},
		{`DateTimeDiff("ss", "2018-03-05T05:00:00.0000000", "2019-02-04T16:00:00.0000000")`, `29070000`},
		// datetimefromparts
		{`DateTimeFromParts(2017, 4, 20)`, `"2017-04-20T00:00:00.0000000Z"`},
		{`DateTimeFromParts(2017, 4, 20, 0, 0, 0, 0)`, `"2017-04-20T00:00:00.0000000Z"`},
		{`DateTimeFromParts(2017, 4, 20, 13, 15, 20, 3456789)`, `"2017-04-20T13:15:20.3456789Z"`},
		{`DateTimeFromParts(2017, 4, 20, 13, 15)`, `"2017-04-20T13:15:00.0000000Z"`},
		{`DateTimeFromParts(-2000, -1, -1)`, `-`},
		// datetimepart
		{`DateTimePart("yyyy", "2016-05-29T08:30:00.1301617")`, `2016`},
		{`DateTimePart("mm", "2016-05-29T08:30:00.1301617")`, `5`},
		{`DateTimePart("dd", "2016-05-29T08:30:00.1301617")`, `29`},
		{`DateTimePart("hh", "2016-05-29T08:30:00.1301617")`, `8`},
		{`DateTimePart("mi", "2016-05-29T08:30:00.1301617")`, `30`},
		{`DateTimePart("ss", "2016-05-29T08:30:00.1301617")`, `0`},
		{`DateTimePart("ms", "2016-05-29T08:30:00.1301617")`, `130`},
		{`DateTimePart("mcs", "2016-05-29T08:30:00.1301617")`, `130161`},
		{`DateTimePart("ns", "2016-05-29T08:30:00.1301617")`, `130161700`},
		// datetimetoticks, datetimetotimestamp, tickstodatetime, timestamptodatetime
		{`DateTimeToTicks("2015-05-19T12:00:00.0000000")`, `14320368000000000`},
		{`DateTimeToTimestamp("2015-05-19T12:00:00.0000000")`, `1432036800000`},
		{`TicksToDateTime(15973607943002652)`, `"2020-08-13T23:19:54.3002652Z"`},
		{`TicksToDateTime(0)`, `"1970-01-01T00:00:00.0000000Z"`},
		{`TicksToDateTime(-116444736000000000)`, `"1601-01-01T00:00:00.0000000Z"`},
		{`TimestampToDateTime(1597360794300)`, `"2020-08-13T23:19:54.3000000Z"`},
		{`TimestampToDateTime(0)`, `"1970-01-01T00:00:00.0000000Z"`},
		{`TimestampToDateTime(-11644473600000)`, `"1601-01-01T00:00:00.0000000Z"`},
	}, nil)
}

// The date and time functions' edges: the parts' names, the forms of a
// date and time string, month ends and leap years, DateTimeDiff's
// boundaries, the range of .NET's DateTime, and undefined for what the
// reference calls invalid (R13).
func TestFuncsDateTimeEdges(t *testing.T) { // R13
	checkFuncs(t, []funcCase{
		// Every name and abbreviation of the reference, in any case.
		{`DateTimePart("year", "2016-05-29T08:30:07.1301617Z")`, `2016`},
		{`DateTimePart("yy", "2016-05-29T08:30:07.1301617Z")`, `2016`},
		{`DateTimePart("month", "2016-05-29T08:30:07.1301617Z")`, `5`},
		{`DateTimePart("m", "2016-05-29T08:30:07.1301617Z")`, `5`},
		{`DateTimePart("day", "2016-05-29T08:30:07.1301617Z")`, `29`},
		{`DateTimePart("d", "2016-05-29T08:30:07.1301617Z")`, `29`},
		{`DateTimePart("hour", "2016-05-29T08:30:07.1301617Z")`, `8`},
		{`DateTimePart("minute", "2016-05-29T08:30:07.1301617Z")`, `30`},
		{`DateTimePart("n", "2016-05-29T08:30:07.1301617Z")`, `30`},
		{`DateTimePart("second", "2016-05-29T08:30:07.1301617Z")`, `7`},
		{`DateTimePart("s", "2016-05-29T08:30:07.1301617Z")`, `7`},
		{`DateTimePart("millisecond", "2016-05-29T08:30:07.1301617Z")`, `130`},
		{`DateTimePart("microsecond", "2016-05-29T08:30:07.1301617Z")`, `130161`},
		{`DateTimePart("nanosecond", "2016-05-29T08:30:07.1301617Z")`, `130161700`},
		{`DateTimePart("YYYY", "2016-05-29T08:30:07Z")`, `2016`},
		{`DateTimePart("week", "2016-05-29T08:30:07Z")`, `-`},
		{`DateTimePart("", "2016-05-29T08:30:07Z")`, `-`},
		{`DateTimePart(1, "2016-05-29T08:30:07Z")`, `-`},
		// The forms taken: a date, a time to the minute, the second, 1 to 7
		// digits of fraction, Z or nothing; nothing else.
		{`DateTimeToTicks("1970-01-02")`, `864000000000`},
		{`DateTimeToTicks("1970-01-01T00:01")`, `600000000`},
		{`DateTimeToTicks("1970-01-01T00:00:01Z")`, `10000000`},
		{`DateTimeToTicks("1970-01-01T00:00:00.5")`, `5000000`},
		{`DateTimeToTicks("1970-01-01T00:00:00.0000001Z")`, `1`},
		{`DateTimeToTicks("1970-01-01T00:00:00.00000001Z")`, `-`},
		{`DateTimeToTicks("1970-01-01T00:00:00.Z")`, `-`},
		{`DateTimeToTicks("1970-01-01T00:00:00+01:00")`, `-`},
		{`DateTimeToTicks("1970-01-01T00:00:00-00:00")`, `-`},
		{`DateTimeToTicks("1970-01-01 00:00:00")`, `-`},
		{`DateTimeToTicks("1970-1-1")`, `-`},
		{`DateTimeToTicks("1970-01-01Z")`, `-`},
		{`DateTimeToTicks("1970-01-01t00:00:00")`, `-`},
		{`DateTimeToTicks("1970-01-01T24:00:00")`, `-`},
		{`DateTimeToTicks("1970-01-01T00:60:00")`, `-`},
		{`DateTimeToTicks("1970-01-01T00:00:60")`, `-`},
		{`DateTimeToTicks("2019-02-29")`, `-`},
		{`DateTimeToTicks("2100-02-29")`, `-`},
		{`DateTimeToTicks("2000-02-29")`, `9517824000000000`},
		{`DateTimeToTicks("0000-12-31")`, `-`},
		{`DateTimeToTicks("0001-01-01T00:00:00Z")`, `-621355968000000000`},
		{`DateTimeToTicks("")`, `-`},
		{`DateTimeToTicks(0)`, `-`},
		{`DateTimeToTicks(null)`, `-`},
		{`DateTimeToTicks(c.missing)`, `-`},
		// Before 1970: negative ticks, timestamps toward zero.
		{`DateTimeToTicks("1969-12-31T23:59:59.9999999")`, `-1`},
		{`DateTimeToTimestamp("1969-12-31T23:59:59.9995")`, `0`},
		{`DateTimeToTimestamp("1969-12-31T23:59:59.9985")`, `-1`},
		{`TicksToDateTime(-1)`, `"1969-12-31T23:59:59.9999999Z"`},
		{`TicksToDateTime(-621355968000000000)`, `"0001-01-01T00:00:00.0000000Z"`},
		{`TicksToDateTime(-621355968000001024)`, `-`}, // the next number down: float64s are 128 apart here
		{`TicksToDateTime(2534023007999999488)`, `"9999-12-31T23:59:59.9999488Z"`},
		{`TicksToDateTime(2534023008000000000)`, `-`},
		{`TicksToDateTime(1e300)`, `-`},
		{`TicksToDateTime(10.9)`, `"1970-01-01T00:00:00.0000010Z"`},
		{`TicksToDateTime("0")`, `-`},
		{`TimestampToDateTime(1.5)`, `"1970-01-01T00:00:00.0015000Z"`},
		{`TimestampToDateTime(253402300800000)`, `-`},
		// Month ends and leap years: the last day of a shorter month.
		{`DateTimeAdd("m", 1, "2020-01-31T10:00:00")`, `"2020-02-29T10:00:00.0000000Z"`},
		{`DateTimeAdd("m", 1, "2019-01-31T10:00:00")`, `"2019-02-28T10:00:00.0000000Z"`},
		{`DateTimeAdd("month", -1, "2020-03-31")`, `"2020-02-29T00:00:00.0000000Z"`},
		{`DateTimeAdd("month", 13, "2020-01-31")`, `"2021-02-28T00:00:00.0000000Z"`},
		{`DateTimeAdd("yy", 1, "2020-02-29")`, `"2021-02-28T00:00:00.0000000Z"`},
		{`DateTimeAdd("year", 4, "2020-02-29")`, `"2024-02-29T00:00:00.0000000Z"`},
		{`DateTimeAdd("d", 1, "2020-02-28")`, `"2020-02-29T00:00:00.0000000Z"`},
		{`DateTimeAdd("d", 1, "2100-02-28")`, `"2100-03-01T00:00:00.0000000Z"`},
		{`DateTimeAdd("ms", 1, "2020-12-31T23:59:59.999")`, `"2021-01-01T00:00:00.0000000Z"`},
		{`DateTimeAdd("mcs", -1, "1970-01-01")`, `"1969-12-31T23:59:59.9999990Z"`},
		{`DateTimeAdd("ns", 150, "1970-01-01")`, `"1970-01-01T00:00:00.0000001Z"`},
		{`DateTimeAdd("ns", -150, "1970-01-01")`, `"1969-12-31T23:59:59.9999999Z"`},
		{`DateTimeAdd("minute", 90, "1970-01-01")`, `"1970-01-01T01:30:00.0000000Z"`},
		// Beyond the range, a fraction, not a number: undefined.
		{`DateTimeAdd("yyyy", 1, "9999-06-01")`, `-`},
		{`DateTimeAdd("dd", -1, "0001-01-01")`, `-`},
		{`DateTimeAdd("ss", 1e15, "2000-01-01")`, `-`},
		{`DateTimeAdd("mm", 1e15, "2000-01-01")`, `-`},
		{`DateTimeAdd("dd", 1.5, "2000-01-01")`, `-`},
		{`DateTimeAdd("dd", "1", "2000-01-01")`, `-`},
		{`DateTimeAdd("week", 1, "2000-01-01")`, `-`},
		{`DateTimeAdd("dd", 1, "2000-01-32")`, `-`},
		// DateTimeDiff counts boundaries crossed, not whole units elapsed.
		{`DateTimeDiff("yyyy", "2018-12-31T23:59:59.9999999", "2019-01-01")`, `1`},
		{`DateTimeDiff("mm", "2019-01-31", "2019-02-01")`, `1`},
		{`DateTimeDiff("dd", "2019-01-01T23:59:59", "2019-01-02T00:00:00")`, `1`},
		{`DateTimeDiff("dd", "2019-01-01T00:00:00", "2019-01-01T23:59:59")`, `0`},
		{`DateTimeDiff("hh", "1969-12-31T23:59:59", "1970-01-01T00:00:00")`, `1`},
		{`DateTimeDiff("ss", "1969-12-31T23:59:59.9999999", "1970-01-01")`, `1`},
		{`DateTimeDiff("ms", "1970-01-01T00:00:00.0009999", "1970-01-01T00:00:00.001")`, `1`},
		{`DateTimeDiff("mcs", "1970-01-01", "1970-01-01T00:00:01")`, `1000000`},
		{`DateTimeDiff("ns", "1970-01-01", "1970-01-01T00:00:00.0000003")`, `300`},
		{`DateTimeDiff("dd", "2020-02-28", "2020-03-01")`, `2`},
		{`DateTimeDiff("dd", "2019-02-28", "2019-03-01")`, `1`},
		{`DateTimeDiff("yyyy", "0001-01-01", "9999-12-31")`, `9998`},
		{`DateTimeDiff("week", "2019-01-01", "2019-02-01")`, `-`},
		{`DateTimeDiff("dd", "2019-01-01", "today")`, `-`},
		// DateTimeBin: a day or shorter, a positive integer size, a start
		// from 1601 on; bins before the start go down, not toward it.
		{`DateTimeBin("2021-01-08T18:35:00", "yyyy")`, `-`},
		{`DateTimeBin("2021-01-08T18:35:00", "mm")`, `-`},
		{`DateTimeBin("2021-01-08T18:35:00", "mi", 15)`, `"2021-01-08T18:30:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.1234567", "ms", 100)`, `"2021-01-08T18:35:00.1000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.1234567", "mcs")`, `"2021-01-08T18:35:00.1234560Z"`},
		{`DateTimeBin("2021-01-08T18:35:00.1234567", "ns", 250)`, `"2021-01-08T18:35:00.1234565Z"`},
		{`DateTimeBin("1969-12-31T18:00:00", "dd")`, `"1969-12-31T00:00:00.0000000Z"`},
		{`DateTimeBin("1960-01-01T00:00:00.0000001", "ns", 300)`, `"1960-01-01T00:00:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00", "hh", 0)`, `-`},
		{`DateTimeBin("2021-01-08T18:35:00", "hh", -1)`, `-`},
		{`DateTimeBin("2021-01-08T18:35:00", "hh", 1.5)`, `-`},
		{`DateTimeBin("2021-01-08T18:35:00", "dd", 1e15)`, `"1970-01-01T00:00:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T18:35:00", "dd", 1, "1600-12-31")`, `-`},
		{`DateTimeBin("2021-01-08T18:35:00", "dd", 1, "2021-01-08T06:00")`, `"2021-01-08T06:00:00.0000000Z"`},
		{`DateTimeBin("2021-01-08T05:35:00", "dd", 1, "2021-01-08T06:00")`, `"2021-01-07T06:00:00.0000000Z"`},
		// DateTimeFromParts: integers in range.
		{`DateTimeFromParts(2020, 2, 29)`, `"2020-02-29T00:00:00.0000000Z"`},
		{`DateTimeFromParts(2019, 2, 29)`, `-`},
		{`DateTimeFromParts(2019, 13, 1)`, `-`},
		{`DateTimeFromParts(2019, 1, 1, 24)`, `-`},
		{`DateTimeFromParts(2019, 1, 1, 0, 0, 0, 10000000)`, `-`},
		{`DateTimeFromParts(2019, 1, 1.5)`, `-`},
		{`DateTimeFromParts(2019, 1, "1")`, `-`},
		{`DateTimeFromParts(10000, 1, 1)`, `-`},
		{`DateTimeFromParts(1, 1, 1)`, `"0001-01-01T00:00:00.0000000Z"`},
	}, nil)
}

// The current date and time: read from the clock the query was bound at,
// the same for every row and for the Static forms, which the service
// reads once per partition (the sample corpus's getcurrent*static: a
// query here reads one snapshot of one partition set); beyond 9999 the
// clock gives undefined (R13).
func TestFuncsDateTimeNow(t *testing.T) { // R13
	q, err := Parse(`SELECT GetCurrentDateTime() AS a, GetCurrentDateTimeStatic() AS b, GetCurrentTicks() AS c, ` +
		`GetCurrentTicksStatic() AS d, GetCurrentTimestamp() AS e, GetCurrentTimestampStatic() AS f FROM c`)
	require.NoError(t, err)
	row := []Row{{Body: `{"id":"1"}`, TS: 1, ETag: "e"}, {Body: `{"id":"2"}`, TS: 1, ETag: "e"}}
	for _, tc := range []struct {
		now  time.Time
		want string
	}{
		// The sample corpus's getcurrentticks and getcurrenttimestamp.
		{time.Unix(0, 1597360794300265200), `{"a":"2020-08-13T23:19:54.3002652Z","b":"2020-08-13T23:19:54.3002652Z","c":15973607943002652,"d":15973607943002652,"e":1597360794300,"f":1597360794300}`},
		// The sample corpus's getcurrentdatetime, read in another zone; ticks
		// beyond 2^53 are numbers, rounded to even as the service's are.
		{time.Date(2019, 5, 3, 22, 36, 17, 123456789, time.FixedZone("CEST", 2*3600)), `{"a":"2019-05-03T20:36:17.1234567Z","b":"2019-05-03T20:36:17.1234567Z","c":15569157771234568,"d":15569157771234568,"e":1556915777123,"f":1556915777123}`},
		{time.Unix(-1, 999999900), `{"a":"1969-12-31T23:59:59.9999999Z","b":"1969-12-31T23:59:59.9999999Z","c":-1,"d":-1,"e":0,"f":0}`},
		{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), `{}`},
	} {
		b, err := q.BindAt(nil, tc.now)
		require.NoError(t, err)
		require.Equal(t, tc.want+"\n"+tc.want, results(b, row), tc.now.String())
	}
	// Bind reads this machine's clock, once.
	before := time.Now()
	b, err := q.Bind(nil)
	after := time.Now()
	require.NoError(t, err)
	require.False(t, b.now.Before(before) || b.now.After(after))
}
