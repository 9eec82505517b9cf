SELECT VALUE {
    randomOneToOne: RAND(),
    randomeOneToHundred: RAND() * 100
}