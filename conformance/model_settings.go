package conformance

// The model's steps on a collection's settings (R1, R8), its clock and its
// sweep (R4, R7).

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ttldb/ttldb"
)

// genSetDefault is SetDefaultTTL with a valid (R1) or an invalid value.
func (h *modelHarness) genSetDefault() modelStep {
	r := h.r
	var d ttldb.DefaultTTL
	var md mDefault
	valid := true
	switch n := r.IntN(20); {
	case n < 4:
		d, md = ttldb.TTLOff(), mDefault{}
	case n < 7:
		d, md = ttldb.TTLNoDefault(), mDefault{true, -1}
	case n < 8:
		d, md = ttldb.TTLSeconds(-1), mDefault{true, -1}
	case n < 16:
		s := 1 + r.Int64N(20)
		d, md = ttldb.TTLSeconds(s), mDefault{true, s}
	case n < 17:
		d, md = ttldb.TTLSeconds(ttldb.MaxTTL), mDefault{true, ttldb.MaxTTL}
	default:
		s := pick(r, []int64{0, -2, -5, ttldb.MaxTTL + 1, 1 << 40, math.MinInt64})
		d, valid = ttldb.TTLSeconds(s), false
	}
	desc := "SetDefaultTTL(" + d.String() + ")"
	msg := ""
	if !valid {
		msg = d.String() // R1: the error names the value
	}
	// Sometimes the setting comes from JSON, as Cosmos DB writes it: null,
	// -1 or n. A bad literal is refused by UnmarshalJSON, with ErrInvalidTTL.
	var lit string
	if r.IntN(4) == 0 {
		switch {
		case !md.on && valid:
			lit = "null"
		case valid:
			lit = pick(r, []string{strconv.FormatInt(md.n, 10), strconv.FormatInt(md.n, 10) + ".0"})
		default:
			lit = pick(r, []string{"0", "-2", "10.5", "2147483648", `"5"`, "true", "{}", "[]", `"off"`})
			msg = lit
		}
		desc = "SetDefaultTTL(json " + lit + ")"
	}
	return modelStep{desc, func() (string, error) {
		var err error
		if lit != "" {
			d = ttldb.TTLSeconds(12345) // UnmarshalJSON must leave it unchanged on error
			if err = json.Unmarshal([]byte(lit), &d); err != nil {
				if n, on := d.Seconds(); !on || n != 12345 {
					return "", fmt.Errorf("UnmarshalJSON(%s) failed with %v but changed the value to %v", lit, err, d)
				}
				// Not a call of the collection: the input error, closed or not.
				if !errors.Is(err, ttldb.ErrInvalidTTL) || !strings.Contains(err.Error(), msg) {
					return "", fmt.Errorf("UnmarshalJSON(%s): %v, want ErrInvalidTTL naming %s", lit, err, msg)
				}
				return classInvalidTTL, nil
			}
		}
		err = h.c.SetDefaultTTL(bg, d)
		want := h.m.setDefault(md, valid)
		return orOK(want), h.checkErr("SetDefaultTTL", err, want, msg)
	}}
}

// genSetIndexing is SetIndexingMode, which R8 refuses for none while TTL
// is on.
func (h *modelHarness) genSetIndexing() modelStep {
	mode := pick(h.r, []ttldb.IndexingMode{ttldb.IndexingConsistent, ttldb.IndexingNone, ttldb.IndexingNone, ttldb.IndexingMode(2 + h.r.IntN(9))})
	return modelStep{"SetIndexingMode(" + mode.String() + ")", func() (string, error) {
		err := h.c.SetIndexingMode(bg, mode)
		want := h.m.setIndexing(mode)
		return orOK(want), h.checkErr("SetIndexingMode", err, want, "")
	}}
}

// genClock moves the wall clock: forward by 0 to 25 seconds or by a
// fraction of one, or backward, which must change nothing (R4).
func (h *modelHarness) genClock() modelStep {
	r := h.r
	var d time.Duration
	switch r.IntN(10) {
	case 0:
	case 1, 2, 3:
		d = time.Second
	case 4, 5:
		d = time.Duration(r.IntN(6)) * time.Second
	case 6:
		d = time.Duration(r.IntN(26)) * time.Second
	case 7:
		d = time.Duration(r.IntN(1000)) * time.Millisecond
	case 8:
		d = -time.Duration(1+r.IntN(30)) * time.Second
	case 9:
		d = -time.Duration(r.IntN(1000)) * time.Millisecond
	}
	return modelStep{fmt.Sprintf("Clock %+v", d), func() (string, error) {
		h.wall.Add(int64(d))
		h.m.observe(h.wallSec())
		return fmt.Sprintf("wall %d, now %d", h.wallSec(), h.m.now), nil
	}}
}

// genSweep deletes the expired documents now (R5).
func (h *modelHarness) genSweep() modelStep {
	return modelStep{"Sweep", func() (string, error) {
		n, err := h.c.Sweep(bg)
		want, class := h.m.sweep()
		if e := h.checkErr("Sweep", err, class, ""); e != nil || err != nil {
			return orOK(class), e
		}
		if !h.background && n != want {
			return "", fmt.Errorf("Sweep: deleted %d, model says %d expired documents await deletion", n, want)
		}
		return fmt.Sprintf("ok %d", n), nil
	}}
}
