SELECT VALUE {
    tangentSquareRootPi: TAN(PI()/2),
    tangentArbitraryNumber: TAN(124.1332)
}