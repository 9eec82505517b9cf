SELECT VALUE {
    currentTicks: GetCurrentTicks()
}