SELECT VALUE {
    sqrtZero: SQRT(0),
    sqrtOne: SQRT(1),
    sqrtFour: SQRT(4),
    sqrtPrime: SQRT(17),
    sqrtTwentyFive: SQRT(25)
}