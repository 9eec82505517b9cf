SELECT VALUE {
    parseTicks: TimestampToDateTime(1597360794300),
    parseUnixEpoch: TimestampToDateTime(0),
    parseWindowsEpoch: TimestampToDateTime(-11644473600000)
}