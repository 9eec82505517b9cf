package ttldb

// The settings a durable collection keeps in its directory, and what the
// options of a reopen do to them (R12). Open keeps them: its options are
// those of a collection it makes, and a non-zero one that differs from the
// stored value refuses the open (checkStored). For NewCollection, options
// describe the collection the program wants: a reopen gives each setting that can change on a live
// collection the value of its options, as if its setter were called right
// after the open (logged, so that the next reopen finds it; DefaultTTL with
// R7's cut-offs at the open's instant), and [Recovery] lists what changed.
// What cannot change (the name, the partition-key path), or a change its
// setter would refuse, refuses the open, which then changes nothing in the
// directory. Options equal to what the directory holds log nothing.
//
//	                  NewCollection                      Open
//	DefaultTTL        applied (SetDefaultTTL)            zero or equal, else refused
//	Indexing          applied (SetIndexingMode)          zero or equal, else refused
//	Indexes           those missing made (CreateIndex)   nil or the same set, else refused
//	Feed              not stored: every open keeps the feed its options say
//	name, key path    stored; a different one is refused (Open: empty is the stored one)
