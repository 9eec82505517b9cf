SELECT VALUE {
    parseTicks: TicksToDateTime(15973607943002652),
    parseUnixEpoch: TicksToDateTime(0),
    parseWindowsEpoch: TicksToDateTime(-116444736000000000)
}