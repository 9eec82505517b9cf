SELECT VALUE {
    logFiveBaseTen: LOG10(5),
    logTwoBaseTen: LOG10(2),
    logHundredBaseTen: LOG10(100)
}