package track

// SolveAssignment runs the tracker's assignment solver on cost (n×m,
// row-major, n ≤ m), for the tests that check it against brute force.
func SolveAssignment(cost []float64, n, m int) []int {
	var s solver
	rowTo := make([]int, n)
	s.solve(cost, n, m, rowTo)
	return rowTo
}
