package db

// Every typed read has one shape: the rows of one table that a filter
// keeps, in an ORDER BY, each turned into a value (selectRows); a read
// asked again with the same key is kept per handle (onceFor, once).
// TestColumnReadsEqualSQL holds each read to the SQL it answers for.

// sortBy is one ORDER BY term, by column name.
type sortBy struct {
	col  string
	desc bool
}

func asc(col string) sortBy  { return sortBy{col, false} }
func desc(col string) sortBy { return sortBy{col, true} }

// selectRows is SELECT … FROM table WHERE keep ORDER BY order over the
// column image: the rows keep accepts (every row when keep is nil), in
// rowid order, sorted stably by order, each read into a T by scan.
func selectRows[T any](d *DB, table string, keep func(t *colTable, r int) bool, order []sortBy, scan func(t *colTable, r int, v *T)) []T {
	t := d.table(table)
	var rows []int
	if keep == nil {
		rows = t.where(nil)
	} else {
		rows = t.where(func(r int) bool { return keep(t, r) })
	}
	keys := make([]orderKey, len(order))
	for i, o := range order {
		keys[i] = orderKey{t.col(o.col), o.desc}
	}
	t.orderBy(rows, keys...)
	return rowsOf(t, rows, scan)
}

// onceFor returns (*m)[key], filling it with load the first time key is
// asked for: what a read builds for one key is kept for the life of the
// handle (the database is read-only). Two callers racing may both load;
// both get a whole answer.
func onceFor[K comparable, V any](d *DB, m *map[K]V, key K, load func() V) V {
	d.cache.mu.Lock()
	v, ok := (*m)[key]
	d.cache.mu.Unlock()
	if ok {
		return v
	}
	v = load()
	d.cache.mu.Lock()
	if *m == nil {
		*m = map[K]V{}
	}
	(*m)[key] = v
	d.cache.mu.Unlock()
	return v
}

// is returns a filter keeping the rows whose column col holds s, for
// one selectRows (it finds the column on the first row).
func is(col, s string) func(t *colTable, r int) bool {
	c := -1
	return func(t *colTable, r int) bool {
		if c < 0 {
			c = t.col(col)
		}
		return t.is(c, r, s)
	}
}
