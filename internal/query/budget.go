package query

import "fmt"

// Budget is what the evaluation of one document may spend (MaxJoinRows
// rows, MaxSubqueryBytes a subquery's result): a query's run keeps one,
// resets it for each document, and gives it to the document's rows with
// [Row.Spend]. Its zero value is a fresh budget.
type Budget = budget

// Reset makes b a fresh budget, for the next document.
func (b *Budget) Reset() { *b = budget{} }

// Spend makes the calls that read r (Match, Each, AppendResult...) spend
// b, and returns r: the calls reading one document share one budget.
func (r Row) Spend(b *Budget) Row {
	r.budget = b
	return r
}

// budget is what one document's evaluation may spend: the rows its
// product and every subquery under it make (MaxJoinRows in all), and the
// first limit it went beyond, which the evaluation then reports rather
// than a value. The rows of a Row share their document's.
type budget struct {
	rows int   // the rows made so far
	err  error // the limit gone beyond; nil: none
}

// joinRowsLimit is MaxJoinRows, lowered by tests.
var joinRowsLimit = MaxJoinRows

// spend counts one row of r's document against MaxJoinRows; false, with
// the error recorded, beyond it (and once an error is).
func (r *Row) spend() bool {
	bg := r.spendable()
	if bg.err != nil {
		return false
	}
	if bg.rows++; bg.rows > joinRowsLimit {
		bg.err = fmt.Errorf("the FROM clauses of the query and its subqueries make more than %d rows of one document (query limit MaxJoinRows): filter the arrays before joining them, or join fewer", joinRowsLimit)
		return false
	}
	return true
}

// spendable returns r's budget, given one if it had none (a Row given no
// budget by Spend: its budget is then the call's).
func (r *Row) spendable() *budget {
	if r.budget == nil {
		r.budget = new(budget)
	}
	return r.budget
}

// failed reports whether r's document went beyond a limit.
func (r *Row) failed() bool { return r.budget != nil && r.budget.err != nil }

// tooLarge records that a subquery's result grew beyond MaxSubqueryBytes.
func (r *Row) tooLarge(n int) {
	if bg := r.spendable(); bg.err == nil {
		bg.err = fmt.Errorf("a subquery's result is more than %d bytes (%d so far; query limit MaxSubqueryBytes): select less of each row, or fewer rows", MaxSubqueryBytes, n)
	}
}

// Err returns the limit r's document went beyond in the calls that read r
// (Match, AppendResult, Accumulate, AddToGroup; Each returns it): its
// product and subqueries made more than MaxJoinRows rows, or a subquery's
// result is beyond MaxSubqueryBytes. Those calls then answer as if the
// value were undefined, which the caller must not take for the answer.
// Nil for none, and for a Row given no budget (Spend). It costs nothing.
func (r Row) Err() error {
	if r.budget == nil {
		return nil
	}
	return r.budget.err
}
