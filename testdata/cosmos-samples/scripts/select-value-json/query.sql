SELECT VALUE {
    department: "Sales",
    team: "Field sales"
}