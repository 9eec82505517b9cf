SELECT VALUE {
    timestamp: DateTimeToTimestamp("2015-05-19T12:00:00.0000000")
}