package track

import "math"

// solver finds a minimum-cost assignment of every row of a cost matrix
// to a distinct column (rows ≤ columns): the Hungarian method in its
// shortest-augmenting-path form with row and column potentials (Kuhn
// and Munkres, as Jonker and Volgenant's augmentation step), O(n² m)
// at worst and about n·m when most rows have one cheap column, as a
// tracker's do. Its buffers are kept across calls: a stream of matrices
// no larger than the largest seen allocates nothing.
type solver struct {
	u, v, minv []float64
	p, way     []int
	used       []bool
}

// grow makes every buffer hold at least n entries.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// solve assigns each of the n rows of cost (row-major, n×m, n ≤ m, every
// value finite) to a distinct column, minimising the sum, and writes
// row i's column to rowTo[i].
func (s *solver) solve(cost []float64, n, m int, rowTo []int) {
	s.u = grow(s.u, n+1)
	s.v = grow(s.v, m+1)
	s.minv = grow(s.minv, m+1)
	s.p = grow(s.p, m+1)
	s.way = grow(s.way, m+1)
	s.used = grow(s.used, m+1)
	u, v, minv, p, way, used := s.u, s.v, s.minv, s.p, s.way, s.used
	clear(u)
	clear(v)
	clear(p)
	// Indices from 1: column 0 is the path's virtual start, p[j] the row
	// (from 1) column j is assigned to, 0 when none.
	for i := 1; i <= n; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := p[j0], math.Inf(1), 0
			row := cost[(i0-1)*m : i0*m]
			for j := 1; j <= m; j++ {
				if used[j] {
					continue
				}
				if cur := row[j-1] - u[i0] - v[j]; cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			if j1 == 0 { // cannot happen with finite costs and n ≤ m
				break
			}
			for j := 0; j <= m; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	for i := range n {
		rowTo[i] = -1
	}
	for j := 1; j <= m; j++ {
		if p[j] != 0 {
			rowTo[p[j]-1] = j - 1
		}
	}
}
