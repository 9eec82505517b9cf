package conformance

import (
	"testing"
)

// Run runs every check of the suite against the engine h opens, each as a
// subtest named by the rule it checks ("R3/...", "R4/..."); a check of
// several rules is named by the first, or by their range. The checks that
// need a capability h lacks (Harness.Reopen, Harness.Second) skip and say
// why. For the in-process engine on a 2-core machine Run takes about 6 s in
// memory and 21 s in a directory (the long forms several times that), most
// of it the model's.
func Run(t *testing.T, h Harness) {
	if h.Open == nil {
		t.Fatal("conformance.Run: Harness.Open is nil")
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, h) })
	}
}

// checks are the suite's checks, by rule.
var checks = []struct {
	name string
	run  func(*testing.T, Harness)
}{
	{"R1-R14/Model", checkModel},
	{"R2/MatrixStoredTTL", mxR2MatrixStoredTTL},
	{"R3/MatrixEveryOperation", mxR3MatrixEveryOperation},
	{"R3/MatrixSalesOrders", mxR3R6R7MatrixSalesOrders},
	{"R4/MatrixWholeSeconds", mxR4MatrixWholeSeconds},
	{"R6/MatrixDocumentTTLChanges", mxR6MatrixDocumentTTLChanges},
	{"R6/MatrixTouch", mxR6MatrixTouch},
	{"R7/MatrixPairs", mxR7MatrixPairs},
	{"R7/MatrixSequences", mxR7MatrixSequences},
	{"R7/MatrixExpiredStaysGone", mxR7MatrixExpiredStaysGone},
	{"R8/MatrixIndexingNone", mxR8MatrixIndexingNone},
	{"R14/PatchAfterClose", checkPatchAfterClose},
	{"R16/SharedReadYourWrites", checkSharedReadYourWrites},
	{"R16/SharedFeedOnce", checkSharedFeedOnce},
	{"R16/SharedSweepOnce", checkSharedSweepOnce},
	{"R13/QueryIndexOracle", checkQueryIndexOracle},
	{"R11/FeedCosmosScenario", checkFeedCosmosScenario},
	{"R11/FeedOperations", checkFeedOperations},
	{"R11/FeedLatestVersion", checkFeedLatestVersion},
	{"R11/FeedRetention", checkFeedRetention},
	{"R11/FeedFromOldest", checkFeedFromOldest},
	{"R11/FeedBadInput", checkFeedBadInput},
	{"R11/FeedLatestVersionChains", checkFeedLatestVersionChains},
	{"R10/PartitionedByID", checkPartitionedByID},
	{"R10/PartitionKeys", checkPartitionKeys},
	{"R10/LimitsExactly", checkLimitsExactly},
	{"R10/BadKeyThatIsTheID", checkBadKeyThatIsTheID},
	{"R10/LimitsMeasureWhatIsStored", checkLimitsMeasureWhatIsStored},
	{"R14/PatchOperations", checkPatchOperations},
	{"R14/PatchJSONLikeConstructors", checkPatchJSONLikeConstructors},
	{"R14/PatchErrorsNameTheFault", checkPatchErrorsNameTheFault},
	{"R14/PatchResultErrorsNameTheDocument", checkPatchResultErrorsNameTheDocument},
	{"R14/PatchIsAWrite", checkPatchIsAWrite},
	{"R14/PatchNestedPartitionKey", checkPatchNestedPartitionKey},
	{"R14/PatchConcurrentIncrements", checkPatchConcurrentIncrements},
	{"R14/TypedPatch", checkTypedPatch},
	{"R14/BatchCosmosScenario", checkBatchCosmosScenario},
	{"R14/BatchFailureChangesNothing", checkBatchFailureChangesNothing},
	{"R14/BatchErrors", checkBatchErrors},
	{"R14/BatchIsSequential", checkBatchIsSequential},
	{"R12/BatchIsDurable", checkBatchIsDurable},
	{"R13/QueryTable", checkQueryTable},
	{"R13/QueryPages", checkQueryPages},
	{"R13/QueryExpiryThroughIndexes", checkQueryExpiryThroughIndexes},
	{"R13/QueryErrors", checkQueryErrors},
	{"R13/PreparedAndTyped", checkPreparedAndTyped},
	{"R13/CursorReadsOneSnapshot", checkCursorReadsOneSnapshot},
	{"R13/CursorDropsWhatExpires", checkCursorDropsWhatExpires},
	{"R10/CreateGetRoundTrip", checkCreateGetRoundTrip},
	{"R10/CRUD", checkCRUD},
	{"R10/ETags", checkETags},
	{"R13/NotEqualOfArraysAndObjectsIsUndefined", checkNotEqualOfArraysAndObjectsIsUndefined},
	{"R13/IgnoreCaseAgreesWithUpper", checkIgnoreCaseAgreesWithUpper},
	{"R13/EdgeCosmosSemantics", checkQueryEdgeCosmosSemantics},
	{"R13/EdgeIndexEqualsScanOnEdgeValues", checkQueryEdgeIndexEqualsScanOnEdgeValues},
	{"R13/EdgeOrderedIndexPastPointCap", checkQueryEdgeOrderedIndexPastPointCap},
	{"R4/EdgeExpiryInstantThroughEveryPlan", checkQueryEdgeExpiryInstantThroughEveryPlan},
	{"R13/EdgeSystemPropertyIndexes", checkQueryEdgeSystemPropertyIndexes},
	{"R13/EdgePagesWithWritesBetween", checkQueryEdgePagesWithWritesBetween},
	{"R2/TypedRoundTrip", checkTypedRoundTrip},
	{"R10/TypedSystemProperties", checkTypedSystemProperties},
	{"R10/TypedListing", checkTypedListing},
}
