SELECT VALUE {
    expontentialZero: EXP(0),
    exponentialTen: EXP(10),
    exponentialTwenty: EXP(20)
}