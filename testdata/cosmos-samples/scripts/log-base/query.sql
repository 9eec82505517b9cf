SELECT VALUE {
    logFive: LOG(5),
    logTwoBaseTen: LOG(2, 10)
}