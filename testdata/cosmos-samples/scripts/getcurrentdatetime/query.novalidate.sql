SELECT VALUE {
    currentUtcDateTime: GetCurrentDateTime()
}