SELECT VALUE {
    cotangent: COT(124.1332)
}