package local

import (
	"fmt"
	"hash/maphash"
	"math/bits"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
	"github.com/ttldb/ttldb/engine"
)

// slotOf returns the document and entry in key's slot, or nils. Call it
// holding collection.mu.
func (m *keyMap) slotOf(key string) (*engine.Doc, *entry) {
	h := maphash.String(m.seed, key)
	g, i, d := m.table(h).find(h, key)
	if g == nil {
		return nil, nil
	}
	return d, g.slots[i].e
}

// slotCount returns the slots of all of m's tables.
func (m *keyMap) slotCount() int {
	n := 0
	m.eachTable(func(t *keyTable, _ int) { n += t.slots() })
	return n
}

// eachTable calls fn once for each table of the directory, with the index
// of its first directory slot.
func (m *keyMap) eachTable(fn func(t *keyTable, first int)) {
	dir := m.dir.Load()
	for i := 0; i < len(dir.tables); {
		t := dir.tables[i].Load()
		fn(t, i)
		i += 1 << (64 - dir.shift - t.depth)
	}
}

// check verifies m's structure: the directory's slots of each table, each
// table's counts, control bytes and probe order, and the key count. Call it
// holding collection.mu.
func (m *keyMap) check(t testing.TB) {
	t.Helper()
	dir := m.dir.Load()
	depth := 64 - dir.shift
	require.Equal(t, 1<<depth, len(dir.tables), "the directory has 2^depth slots")
	total := 0
	m.eachTable(func(tb *keyTable, first int) {
		require.LessOrEqual(t, tb.depth, depth, "a table is no deeper than the directory")
		span := 1 << (depth - tb.depth)
		require.Zero(t, first%span, "a table's directory slots are aligned")
		for j := range span {
			require.Same(t, tb, dir.tables[first+j].Load(), "a table of depth %d has %d consecutive directory slots", tb.depth, span)
		}
		require.Equal(t, 0, len(tb.groups)&(len(tb.groups)-1), "a power of two of groups")
		require.Equal(t, uint64(len(tb.groups)-1), tb.mask)
		full, deleted := 0, 0
		for gi := range tb.groups {
			g := &tb.groups[gi]
			ctrl := g.ctrl.Load()
			for i := range groupSlots {
				b := uint8(ctrl >> (8 * i))
				d, e := g.slots[i].d.Load(), g.slots[i].e
				switch {
				case b == ctrlEmpty || b == ctrlDeleted:
					if b == ctrlDeleted {
						deleted++
					}
					if d != nil || e != nil {
						t.Fatalf("a free slot holds document %v and entry %v", d, e)
					}
				case b < 0x80:
					full++
					if d == nil || e == nil || e.doc() != d {
						t.Fatalf("a full slot holds document %v and entry %v, not the entry's document", d, e)
					}
					h := maphash.String(m.seed, d.Key())
					if uint8(h&0x7F) != b {
						t.Fatalf("%q: control byte %#x, not its hash's", d.Key(), b)
					}
					if tb.depth > 0 && uint64(first)>>(depth-tb.depth) != h>>(64-tb.depth) {
						t.Fatalf("%q is not in the table of its hash's top bits", d.Key())
					}
					if fg, fi, fd := tb.find(h, d.Key()); fg != g || fi != i || fd != d {
						t.Fatalf("%q is not found where it is: something before it in its probe ends the probe", d.Key())
					}
				default:
					t.Fatalf("control byte %#x", b)
				}
			}
		}
		require.Equal(t, full, tb.live, "live counts the full slots")
		require.Equal(t, full+deleted, tb.used, "used counts the full and deleted slots")
		require.Less(t, tb.used, tb.slots(), "a slot is always empty")
		require.LessOrEqual(t, tb.used, max(tb.maxUsed(), 1))
		total += full
	})
	require.Equal(t, total, m.len(), "the key count")
}

// mapDoc makes a document of key for the map tests; v tells versions apart.
func mapDoc(key string, v int) *engine.Doc {
	return engine.NewDoc(key, engine.Layout{}, "{}", 0, int64(v), uint64(v))
}

// TestKeyMapModel drives a key map with random inserts, overwrites and
// removes, growing it through rebuilds and splits and shrinking it back,
// against a Go map.
func TestKeyMapModel(t *testing.T) {
	for _, presize := range []int{0, 5000} {
		t.Run(fmt.Sprintf("presize=%d", presize), func(t *testing.T) {
			var m keyMap
			m.init(maphash.MakeSeed())
			if presize > 0 {
				m.presize(presize)
			}
			want := map[string]*entry{}
			r := rand.New(rand.NewPCG(7, uint64(presize)))
			keys := 1
			steps := sized(60_000, 200_000)
			for step := range steps {
				// The key space grows to steps/10 keys (20,000 in the
				// long form), then shrinks to 50.
				switch {
				case step < steps/2:
					keys = 1 + step/5
				case step < steps*3/4:
					keys = steps / 10
				default:
					keys = 50
				}
				key := fmt.Sprintf("key-%d", r.IntN(keys))
				h := maphash.String(m.seed, key)
				e, gh := m.get([]byte(key))
				require.Equal(t, h, gh)
				require.Same(t, want[key], e, "get %q at step %d", key, step)
				switch {
				case step >= steps*3/4 && r.IntN(4) != 0, r.IntN(5) == 0: // remove
					require.Equal(t, e != nil, m.remove(h, key), "remove %q at step %d", key, step)
					delete(want, key)
				case e != nil: // overwrite
					d := mapDoc(key, step)
					e.cur.Store(d)
					m.swap(h, d)
				default:
					d := mapDoc(key, step)
					e = newEntry(d)
					m.insert(h, d, e)
					want[key] = e
				}
				require.Equal(t, len(want), m.len(), "step %d", step)
				if step%10_000 == 0 || step == steps-1 {
					m.check(t)
					for k, e := range want {
						d, open := m.lookup([]byte(k))
						require.True(t, open)
						require.Same(t, e.doc(), d, "lookup %q", k)
					}
				}
			}
			d, open := m.lookup([]byte("key-none"))
			require.True(t, open)
			require.Nil(t, d)
			m.clear()
			_, open = m.lookup([]byte("key-1"))
			require.False(t, open, "a cleared map is closed")
		})
	}
}

// TestKeyMapRebuildsAreBounded: no change rebuilds more than one table, of
// at most 7/8 of maxKeyGroups groups of keys, whatever the map's size (R5:
// no write waits for more than a small batch).
func TestKeyMapRebuildsAreBounded(t *testing.T) { // R5
	most, rebuilds := 0, 0
	rebuildHook = func(n int) { most = max(most, n); rebuilds++ }
	defer func() { rebuildHook = nil }()
	var m keyMap
	m.init(maphash.MakeSeed())
	const n = 100_000
	for i := range n {
		key := fmt.Sprintf("k%d", i)
		d := mapDoc(key, i)
		m.insert(maphash.String(m.seed, key), d, newEntry(d))
	}
	for i := range n {
		key := fmt.Sprintf("k%d", i)
		require.True(t, m.remove(maphash.String(m.seed, key), key))
	}
	m.check(t)
	require.Greater(t, rebuilds, n/(maxKeyGroups*groupSlots), "the map grew and shrank")
	require.LessOrEqual(t, most, maxKeyGroups*groupSlots*7/8, "a rebuild moves one table's keys at most")
	require.LessOrEqual(t, m.slotCount(), 1<<(64-m.dir.Load().shift)*groupSlots, "emptied, every table is down to one group")
}

// TestKeyMapReadersNeverWait: readers look keys up without a lock while a
// writer inserts, overwrites and removes others, making the map grow,
// split and shrink: a key present all along is always found, at one of
// its versions, and a key never stored never is. Run it with -race.
func TestKeyMapReadersNeverWait(t *testing.T) {
	var m keyMap
	m.init(maphash.MakeSeed())
	var mu sync.Mutex // the writers' lock, as collection.mu
	const stable = 64
	put := func(key string, v int) {
		h := maphash.String(m.seed, key)
		d := mapDoc(key, v)
		if e, _ := m.get([]byte(key)); e != nil {
			e.cur.Store(d)
			m.swap(h, d)
			return
		}
		m.insert(h, d, newEntry(d))
	}
	for i := range stable {
		put(fmt.Sprintf("stable-%d", i), 0)
	}
	var done atomic.Bool
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for r := range 2 {
		wg.Go(func() {
			for i := 0; !done.Load(); i++ {
				key := fmt.Sprintf("stable-%d", (i+r)%stable)
				d, open := m.lookup([]byte(key))
				if !open || d == nil || d.Key() != key {
					errs <- fmt.Errorf("lookup %q: %v, open %v", key, d, open)
					return
				}
				if d, _ := m.lookup([]byte(fmt.Sprintf("never-%d", i%100))); d != nil {
					errs <- fmt.Errorf("found %q, never stored", d.Key())
					return
				}
			}
		})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	churn := 0
	for round := range 6 {
		// Grow to 30,000 churned keys, then remove them all.
		for i := range 30_000 {
			mu.Lock()
			put(fmt.Sprintf("churn-%d-%d", round, i), i)
			put(fmt.Sprintf("stable-%d", rng.IntN(stable)), i)
			mu.Unlock()
			churn++
		}
		for i := range 30_000 {
			mu.Lock()
			key := fmt.Sprintf("churn-%d-%d", round, i)
			m.remove(maphash.String(m.seed, key), key)
			mu.Unlock()
		}
	}
	done.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	m.check(t)
	require.Equal(t, stable, m.len())
}

// TestKeyMapMatch checks the control-byte matches against a byte-by-byte
// reading, on random groups.
func TestKeyMapMatch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range sized(20_000, 100_000) {
		var ctrl uint64
		for i := range groupSlots {
			var b uint8
			switch r.IntN(4) {
			case 0:
				b = ctrlEmpty
			case 1:
				b = ctrlDeleted
			default:
				b = uint8(r.IntN(4)) // few tags, so that they repeat
			}
			ctrl = withByte(ctrl, i, b)
		}
		tag := uint8(r.IntN(4))
		match, empty, free := matchTag(ctrl, tag), matchEmpty(ctrl), matchFree(ctrl)
		for i := range groupSlots {
			b, bit := uint8(ctrl>>(8*i)), uint64(0x80)<<(8*i)
			if b == tag {
				require.NotZero(t, match&bit, "slot %d of %#x holds tag %#x", i, ctrl, tag)
			}
			if match&bit != 0 {
				require.Less(t, b, uint8(0x80), "a match is a full slot (%#x)", ctrl)
			}
			require.Equal(t, b == ctrlEmpty, empty&bit != 0, "empty slot %d of %#x", i, ctrl)
			require.Equal(t, b >= 0x80, free&bit != 0, "free slot %d of %#x", i, ctrl)
		}
		require.Zero(t, bits.OnesCount64(match&^msb8))
	}
}

// BenchmarkKeyMap measures the key map at 1,000,000 keys against a Go map
// behind a sync.RWMutex (what the point reads used before): a lookup of a
// random key, and the writer's remove and insert of one.
func BenchmarkKeyMap(b *testing.B) {
	const n = 1_000_000
	keys := make([][]byte, n)
	docs := make([]*engine.Doc, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "key:%010d", i)
		docs[i] = mapDoc(string(keys[i]), i)
	}
	var m keyMap
	m.init(maphash.MakeSeed())
	var mu sync.RWMutex
	gm := make(map[string]*engine.Doc)
	for i, d := range docs {
		m.insert(maphash.Bytes(m.seed, keys[i]), d, newEntry(d))
		gm[d.Key()] = d
	}
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("lookup", func(b *testing.B) {
		for b.Loop() {
			if d, _ := m.lookup(keys[r.IntN(n)]); d == nil {
				b.Fatal("missing")
			}
		}
	})
	b.Run("lookup/gomap+rwmutex", func(b *testing.B) {
		for b.Loop() {
			mu.RLock()
			d := gm[string(keys[r.IntN(n)])]
			mu.RUnlock()
			if d == nil {
				b.Fatal("missing")
			}
		}
	})
	b.Run("remove+insert", func(b *testing.B) {
		for b.Loop() {
			i := r.IntN(n)
			h := maphash.Bytes(m.seed, keys[i])
			m.remove(h, docs[i].Key())
			m.insert(h, docs[i], newEntry(docs[i]))
		}
	})
	b.Run("remove+insert/gomap+rwmutex", func(b *testing.B) {
		for b.Loop() {
			i := r.IntN(n)
			mu.Lock()
			delete(gm, docs[i].Key())
			mu.Unlock()
			mu.Lock()
			gm[docs[i].Key()] = docs[i]
			mu.Unlock()
		}
	})
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.Logf("key map: %d slots for %d keys, %.1f B a key", m.slotCount(), n, float64(m.slotCount()/groupSlots*int(unsafe.Sizeof(keyGroup{})))/n)
}
