SELECT VALUE {
    signNegativeTwo: SIGN(-2),
    signNegativeOne: SIGN(-1),
    signZero: SIGN(0),
    signOne: SIGN(1),
    signTwo: SIGN(2)
}