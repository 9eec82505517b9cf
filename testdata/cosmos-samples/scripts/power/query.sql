SELECT VALUE {
    oneFirstPower: POWER(1, 1),
    twoSquared: POWER(2, 2),
    threeCubed: POWER(3, 3),
    fourFourthPower: POWER(4, 4),
    fiveFithPower: POWER(5, 5),
    zeroSquared: POWER(0, 2),
    nullCubed: POWER(null, 3),
    twoNullPower: POWER(2, null)
}