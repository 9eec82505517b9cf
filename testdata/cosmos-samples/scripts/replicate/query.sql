SELECT VALUE {
    catchPhrase: REPLICATE("Cosmic", 3)
}