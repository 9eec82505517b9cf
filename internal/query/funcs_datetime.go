package query

import (
	"math"
	"math/big"
	"strings"
	"time"
)

// dateTimeFuncs are the date and time functions. An instant is a count of
// ticks (100 ns) since the Unix epoch, from 0001-01-01T00:00:00.0000000Z
// to 9999-12-31T23:59:59.9999999Z (.NET's DateTime, which the service's
// formats and tick counts come from); one outside that range, a string
// that is no date and time, an unknown part or an argument of the wrong
// kind make the function undefined. The "current" functions read the
// instant the query was bound at (BindAt): one for every row of a query.
var dateTimeFuncs = []*funcDef{
	{"GETCURRENTDATETIME", 0, 0, nowFunc(fmtNow)},
	{"GETCURRENTDATETIMESTATIC", 0, 0, nowFunc(fmtNow)},
	{"GETCURRENTTICKS", 0, 0, nowFunc(ticksNow)},
	{"GETCURRENTTICKSSTATIC", 0, 0, nowFunc(ticksNow)},
	{"GETCURRENTTIMESTAMP", 0, 0, nowFunc(msNow)},
	{"GETCURRENTTIMESTAMPSTATIC", 0, 0, nowFunc(msNow)},
	{"DATETIMEADD", 3, 3, fnDateTimeAdd},
	{"DATETIMEDIFF", 3, 3, fnDateTimeDiff},
	{"DATETIMEPART", 2, 2, fnDateTimePart},
	{"DATETIMEBIN", 2, 4, fnDateTimeBin},
	{"DATETIMEFROMPARTS", 3, 7, fnDateTimeFromParts},
	{"DATETIMETOTICKS", 1, 1, dateTime1(func(t int64) val { return numVal(float64(t)) })},
	{"DATETIMETOTIMESTAMP", 1, 1, dateTime1(func(t int64) val { return numVal(float64(t / ticksPerMs)) })},
	{"TICKSTODATETIME", 1, 1, fromCount(1)},
	{"TIMESTAMPTODATETIME", 1, 1, fromCount(ticksPerMs)},
}

// Ticks per unit, and the range of instants.
const (
	ticksPerMcs    = 10
	ticksPerMs     = 10_000
	ticksPerSecond = 10_000_000
	ticksPerMinute = 60 * ticksPerSecond
	ticksPerHour   = 60 * ticksPerMinute
	ticksPerDay    = 24 * ticksPerHour

	minTicks     = -62135596800 * ticksPerSecond       // 0001-01-01T00:00:00Z
	maxTicks     = 253402300800*ticksPerSecond - 1     // 9999-12-31T23:59:59.9999999Z
	windowsEpoch = -11644473600 * ticksPerSecond       // 1601-01-01T00:00:00Z
	dateTimeFmt  = "2006-01-02T15:04:05.0000000Z07:00" // UTC: the zone writes Z
)

// A part of a date and time, as DateTimeAdd, DateTimeDiff, DateTimePart
// and DateTimeBin name it.
type dtPart uint8

const (
	partNone dtPart = iota
	partYear
	partMonth
	partDay
	partHour
	partMinute
	partSecond
	partMs
	partMcs
	partNs
)

// dtParts are the parts' names and abbreviations (the Learn reference's),
// in lower case: a name matches in any case.
var dtParts = map[string]dtPart{
	"year": partYear, "yyyy": partYear, "yy": partYear,
	"month": partMonth, "mm": partMonth, "m": partMonth,
	"day": partDay, "dd": partDay, "d": partDay,
	"hour": partHour, "hh": partHour,
	"minute": partMinute, "mi": partMinute, "n": partMinute,
	"second": partSecond, "ss": partSecond, "s": partSecond,
	"millisecond": partMs, "ms": partMs,
	"microsecond": partMcs, "mcs": partMcs,
	"nanosecond": partNs, "ns": partNs,
}

// partTicks are the ticks of each part of fixed length, day and below; the
// nanosecond, a hundredth of a tick, has none.
var partTicks = [...]int64{partDay: ticksPerDay, partHour: ticksPerHour, partMinute: ticksPerMinute,
	partSecond: ticksPerSecond, partMs: ticksPerMs, partMcs: ticksPerMcs, partNs: 0}

// partArg returns the part v names; partNone for anything else.
func partArg(v val) dtPart {
	if v.Kind != String || len(v.Str) > len("millisecond") {
		return partNone
	}
	return dtParts[strings.ToLower(v.Str)]
}

// parseDateTime returns the instant s writes, in ticks: YYYY-MM-DD,
// optionally followed by Thh:mm, :ss and a fraction of 1 to 7 digits, then
// optionally Z. Anything else, an offset from UTC included (the service
// takes UTC), is not a date and time.
func parseDateTime(s string) (int64, bool) {
	p := dtScanner{s: s}
	y, mo, d := p.num(4), p.sep('-', 2), p.sep('-', 2)
	var h, mi, sec, frac int
	if p.i < len(s) && s[p.i] == 'T' {
		p.i++
		h, mi = p.num(2), p.sep(':', 2)
		if p.i < len(s) && s[p.i] == ':' {
			sec = p.sep(':', 2)
			if p.i < len(s) && s[p.i] == '.' {
				p.i++
				start := p.i
				for p.i < len(s) && p.i-start < 7 && s[p.i] >= '0' && s[p.i] <= '9' {
					frac = frac*10 + int(s[p.i]-'0')
					p.i++
				}
				if p.i == start {
					return 0, false
				}
				for n := p.i - start; n < 7; n++ {
					frac *= 10
				}
			}
		}
		if p.i < len(s) && s[p.i] == 'Z' {
			p.i++
		}
	}
	if p.bad || p.i != len(s) {
		return 0, false
	}
	return fromParts(y, mo, d, h, mi, sec, frac)
}

// dtScanner reads fixed-width numbers from a date and time string.
type dtScanner struct {
	s   string
	i   int
	bad bool
}

// num reads n digits.
func (p *dtScanner) num(n int) int {
	v := 0
	for k := 0; k < n; k++ {
		if p.i >= len(p.s) || p.s[p.i] < '0' || p.s[p.i] > '9' {
			p.bad = true
			return 0
		}
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
	}
	return v
}

// sep reads the separator c, then n digits.
func (p *dtScanner) sep(c byte, n int) int {
	if p.i >= len(p.s) || p.s[p.i] != c {
		p.bad = true
		return 0
	}
	p.i++
	return p.num(n)
}

// fromParts returns the instant of a date and time, or false when a part
// is out of its range (the 30th of February, the hour 24, the year 0).
func fromParts(y, mo, d, h, mi, s, frac int) (int64, bool) {
	if y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, time.Month(mo)) ||
		h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || frac < 0 || frac >= ticksPerSecond {
		return 0, false
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, 0, time.UTC)
	return t.Unix()*ticksPerSecond + int64(frac), true
}

// daysIn returns the number of days of month m of year y.
func daysIn(y int, m time.Month) int { return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day() }

// timeOf returns the instant t as a time.Time in UTC.
func timeOf(t int64) time.Time {
	sec := floorDiv(t, ticksPerSecond)
	return time.Unix(sec, (t-sec*ticksPerSecond)*100).UTC()
}

// dateTimeVal returns the instant t written as the service writes one,
// YYYY-MM-DDThh:mm:ss.fffffffZ; undefined out of range.
func dateTimeVal(t int64) val {
	if t < minTicks || t > maxTicks {
		return undef
	}
	return strVal(timeOf(t).Format(dateTimeFmt))
}

// floorDiv returns a/b rounded toward minus infinity, for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// nowTicks returns the instant the query was bound at, in ticks; false
// outside the range of instants.
func (b *Bound) nowTicks() (int64, bool) {
	u := b.now.Unix()
	if u < minTicks/ticksPerSecond || u > maxTicks/ticksPerSecond {
		return 0, false
	}
	return u*ticksPerSecond + int64(b.now.Nanosecond()/100), true
}

// nowFunc returns a function of no arguments that is f of the query's
// instant; undefined when the clock reads beyond the year 9999.
func nowFunc(f func(int64) val) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, _ *expr, _ Row) val {
		t, ok := b.nowTicks()
		if !ok {
			return undef
		}
		return f(t)
	}
}

func fmtNow(t int64) val   { return dateTimeVal(t) }
func ticksNow(t int64) val { return numVal(float64(t)) }
func msNow(t int64) val    { return numVal(float64(t / ticksPerMs)) }

// dtArg returns the instant of v, a date and time string.
func dtArg(v val) (int64, bool) {
	if v.Kind != String {
		return 0, false
	}
	return parseDateTime(v.Str)
}

// dateTime1 returns the function of one date and time string that is f.
func dateTime1(f func(int64) val) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		t, ok := dtArg(b.arg(e, &r, 0))
		if !ok {
			return undef
		}
		return f(t)
	}
}

// fromCount returns TicksToDateTime (unit 1) or TimestampToDateTime (unit
// ticksPerMs): the instant a number of units after the Unix epoch, its
// fraction of a tick dropped.
func fromCount(unit int64) func(b *Bound, e *expr, r Row) val {
	return func(b *Bound, e *expr, r Row) val {
		v := b.arg(e, &r, 0)
		if v.Kind != Number {
			return undef
		}
		if math.IsNaN(v.Num) || math.Abs(v.Num) > float64(maxTicks)/float64(unit)+1 {
			return undef
		}
		if v.Num == math.Trunc(v.Num) {
			return dateTimeVal(int64(v.Num) * unit)
		}
		return dateTimeVal(int64(v.Num * float64(unit)))
	}
}

// intNum returns v as an int64, if it is an integral number within ±2^53.
func intNum(v val) (int64, bool) {
	if v.Kind != Number || v.Num != math.Trunc(v.Num) || math.Abs(v.Num) > 1<<53 {
		return 0, false
	}
	return int64(v.Num), true
}

// fnDateTimeAdd is DATETIMEADD(part, n, dt): dt with n of part added, n an
// integer. Adding months or years keeps the day of the month, or takes the
// month's last day when it has fewer (.NET's AddMonths: 2020-01-31 plus a
// month is 2020-02-29); nanoseconds count in whole ticks, toward zero.
func fnDateTimeAdd(b *Bound, e *expr, r Row) val {
	part := partArg(b.arg(e, &r, 0))
	n, okN := intNum(b.arg(e, &r, 1))
	t, okT := dtArg(b.arg(e, &r, 2))
	if part == partNone || !okN || !okT {
		return undef
	}
	switch part {
	case partYear, partMonth:
		if part == partYear {
			n *= 12
		}
		if n > 12*10000 || n < -12*10000 {
			return undef
		}
		tm := timeOf(t)
		months := int64(tm.Year())*12 + int64(tm.Month()) - 1 + n
		y, m := int(floorDiv(months, 12)), time.Month(months-floorDiv(months, 12)*12+1)
		if y < 1 || y > 9999 {
			return undef
		}
		d := min(tm.Day(), daysIn(y, m))
		start, _ := fromParts(y, int(m), d, 0, 0, 0, 0)
		return dateTimeVal(start + floorMod(t, ticksPerDay))
	case partNs:
		return dateTimeVal(t + n/100)
	}
	unit := partTicks[part]
	if n > (maxTicks-minTicks)/unit || n < -(maxTicks-minTicks)/unit {
		return undef
	}
	return dateTimeVal(t + n*unit)
}

// floorMod returns a - floorDiv(a, b)*b, for b > 0.
func floorMod(a, b int64) int64 { return a - floorDiv(a, b)*b }

// fnDateTimeDiff is DATETIMEDIFF(part, start, end): how many boundaries of
// part lie between start and end (negative when end is before start), as
// SQL Server's DATEDIFF counts them: from 2018-12-31 to 2019-01-01 is a
// year, though a day passed (the sample corpus's datetimediff).
func fnDateTimeDiff(b *Bound, e *expr, r Row) val {
	part := partArg(b.arg(e, &r, 0))
	t0, ok0 := dtArg(b.arg(e, &r, 1))
	t1, ok1 := dtArg(b.arg(e, &r, 2))
	if part == partNone || !ok0 || !ok1 {
		return undef
	}
	switch part {
	case partYear, partMonth:
		a, c := timeOf(t0), timeOf(t1)
		n := c.Year() - a.Year()
		if part == partMonth {
			n = n*12 + int(c.Month()) - int(a.Month())
		}
		return numVal(float64(n))
	case partNs:
		return numVal(float64(t1-t0) * 100)
	}
	unit := partTicks[part]
	return numVal(float64(floorDiv(t1, unit) - floorDiv(t0, unit)))
}

// fnDateTimePart is DATETIMEPART(part, dt): that part of dt; the
// millisecond, microsecond and nanosecond count within the second
// (.1301617 has 130 ms, 130161 µs, 130161700 ns: the sample corpus).
func fnDateTimePart(b *Bound, e *expr, r Row) val {
	part := partArg(b.arg(e, &r, 0))
	t, ok := dtArg(b.arg(e, &r, 1))
	if part == partNone || !ok {
		return undef
	}
	tm := timeOf(t)
	frac := floorMod(t, ticksPerSecond)
	var n int64
	switch part {
	case partYear:
		n = int64(tm.Year())
	case partMonth:
		n = int64(tm.Month())
	case partDay:
		n = int64(tm.Day())
	case partHour:
		n = int64(tm.Hour())
	case partMinute:
		n = int64(tm.Minute())
	case partSecond:
		n = int64(tm.Second())
	case partMs:
		n = frac / ticksPerMs
	case partMcs:
		n = frac / ticksPerMcs
	case partNs:
		n = frac * 100
	}
	return numVal(float64(n))
}

// fnDateTimeBin is DATETIMEBIN(dt, part [, size [, start]]): the start of
// the bin of size parts (a positive integer, 1 by default) that holds dt,
// bins being laid from start (the Unix epoch by default, not before 1601).
// The part is a day or shorter: years and months have no fixed length.
func fnDateTimeBin(b *Bound, e *expr, r Row) val {
	t, okT := dtArg(b.arg(e, &r, 0))
	part := partArg(b.arg(e, &r, 1))
	size, start := int64(1), int64(0)
	if len(e.args) > 2 {
		var ok bool
		if size, ok = intNum(b.arg(e, &r, 2)); !ok || size <= 0 {
			return undef
		}
	}
	if len(e.args) > 3 {
		var ok bool
		if start, ok = dtArg(b.arg(e, &r, 3)); !ok || start < windowsEpoch {
			return undef
		}
	}
	if !okT || part < partDay {
		return undef
	}
	if part == partNs { // in nanoseconds, which overflow int64 over 292 years
		ns := new(big.Int).Mul(big.NewInt(t-start), big.NewInt(100))
		m := new(big.Int).Mod(ns, big.NewInt(size)) // Euclidean: m >= 0
		ns.Div(ns.Sub(ns, m), big.NewInt(100))      // floor: a tick holds 100 ns
		return dateTimeVal(start + ns.Int64())
	}
	if size > (maxTicks-minTicks)/partTicks[part] {
		size = (maxTicks-minTicks)/partTicks[part] + 1 // one bin holds every instant
	}
	w := size * partTicks[part]
	return dateTimeVal(start + floorDiv(t-start, w)*w)
}

// fnDateTimeFromParts is DATETIMEFROMPARTS(year, month, day [, hour
// [, minute [, second [, fraction]]]]): integers, the fraction in ticks
// (3456789 is .3456789); a part out of its range is undefined.
func fnDateTimeFromParts(b *Bound, e *expr, r Row) val {
	var p [7]int
	for i := range e.args {
		n, ok := intNum(b.arg(e, &r, i))
		if !ok || n < math.MinInt32 || n > math.MaxInt32 {
			return undef
		}
		p[i] = int(n)
	}
	t, ok := fromParts(p[0], p[1], p[2], p[3], p[4], p[5], p[6])
	if !ok {
		return undef
	}
	return dateTimeVal(t)
}
