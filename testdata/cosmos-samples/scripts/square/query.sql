SELECT VALUE {
    squareZero: SQUARE(0),
    squareOne: SQUARE(1),
    squareTwo: SQUARE(2),
    squareThree: SQUARE(3),
    squareNull: SQUARE(null)
}