SELECT VALUE {
    floorPostiveNumber: FLOOR(62.6),
    floorNegativeNumber: FLOOR(-145.12),
    floorSmallNumber: FLOOR(0.2989),
    floorZero: FLOOR(0.0),
    floorNull: FLOOR(null)
}