package local

import "fmt"

// syncBehind is run's round under [SyncEverySecond]: it writes what is
// pending, then syncs the log without holding fmu, so that writers, who
// take fmu to write their groups, never wait for the disk. Held through
// the sync, fmu made every write wait for the second's sync: 70-110 ms
// under a steady load of writes, once a second. It holds smu through the
// sync, taken before fmu goes, so that the log's rotation (next), which
// takes smu under fmu, syncs and closes the file only after, and fails if
// this sync did. What it counts as synced is what was written before the
// sync began.
func (j *journal) syncBehind() {
	j.fmu.Lock()
	j.flush()
	if j.err != nil || !j.unsync {
		if j.err == nil {
			j.linked() // as sync: a log removed is found within a second, written to or not
		}
		j.fmu.Unlock()
		return
	}
	f, epoch, off, upto := j.file, j.epoch, j.off, j.written.Load()
	j.smu.Lock() // before fmu goes: the file cannot be closed until the sync ends
	j.fmu.Unlock()
	err := j.serr
	if err == nil {
		if err = f.Sync(); err != nil {
			j.serr = err
		}
	}
	j.smu.Unlock()
	j.fmu.Lock()
	defer j.fmu.Unlock()
	if j.err != nil {
		return
	}
	if err != nil {
		j.err = fmt.Errorf("syncing %s: %w", inDir(j.dir, LogName(epoch)), err)
		return
	}
	if j.epoch == epoch { // not rotated meanwhile: next synced the whole log, and the next has its own offsets
		if j.off == off {
			j.unsync = false
		}
		if off > j.syncedOff.Load() {
			j.syncedOff.Store(off)
		}
	}
	if !j.linked() {
		return
	}
	if upto > j.synced.Load() {
		j.synced.Store(upto)
	}
}
