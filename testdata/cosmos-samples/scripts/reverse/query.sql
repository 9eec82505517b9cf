SELECT VALUE {
    reverseAdventureWorks: REVERSE("AdventureWorks"),
    reverseAdventureWorksBack: REVERSE("skroWerutnevdA"),
    doubleReverseAdventureWorks: REVERSE(REVERSE("AdventureWorks"))
}