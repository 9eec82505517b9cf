SELECT {
    department: "Sales",
    team: "Field sales"
}