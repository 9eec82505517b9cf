SELECT VALUE {
    cosine: COS(14.78)
}