SELECT VALUE {
    currentTimestamp: GetCurrentTimestamp()
}