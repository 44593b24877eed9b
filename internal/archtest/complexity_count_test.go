package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand"
	"strings"
	"testing"
)

// namedFunc is a function declaration, or a function literal assigned at
// package level (var f = func() {...}), which gocyclo also measures.
type namedFunc struct {
	name string
	node ast.Node
}

// fileComplexities lists the functions gocyclo v0.6.0 measures in a file.
// Unlike gocyclo, a //gocyclo:ignore directive is not honoured: the rule
// holds everywhere, with no comment to switch it off.
func fileComplexities(f *ast.File) []namedFunc {
	var out []namedFunc
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			out = append(out, namedFunc{name: funcName(d), node: d})
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				vs, ok := spec.(*ast.ValueSpec)
				if !ok {
					continue
				}
				for _, v := range vs.Values {
					if lit, ok := v.(*ast.FuncLit); ok {
						out = append(out, namedFunc{name: vs.Names[0].Name, node: lit})
					}
				}
			}
		}
	}
	return out
}

// complexity is gocyclo v0.6.0's cyclomatic complexity: 1, plus one for
// each if, for, range, non-default case or select clause, && and ||,
// counted through the whole body, function literals inside included.
func complexity(fn ast.Node) int {
	c := 1
	ast.Inspect(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			c++
		case *ast.CaseClause:
			if n.List != nil { // default adds no path
				c++
			}
		case *ast.CommClause:
			if n.Comm != nil { // default adds no path
				c++
			}
		case *ast.BinaryExpr:
			if n.Op == token.LAND || n.Op == token.LOR {
				c++
			}
		}
		return true
	})
	return c
}

// funcName prints a function as gocyclo does: "(T).M", "(*T).M" or "F".
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv != nil && fn.Recv.NumFields() > 0 {
		return fmt.Sprintf("(%s).%s", recvString(fn.Recv.List[0].Type), fn.Name.Name)
	}
	return fn.Name.Name
}

func recvString(recv ast.Expr) string {
	switch t := recv.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + recvString(t.X)
	case *ast.IndexExpr:
		return recvString(t.X)
	case *ast.IndexListExpr:
		return recvString(t.X)
	}
	return "BADRECV"
}

// TestComplexityNamedCases pins the counting rules on small functions whose
// complexity is counted by hand in each case's comment.
func TestComplexityNamedCases(t *testing.T) {
	cases := []struct {
		name, src string
		want      int
	}{
		// straight line: 1
		{"F", `func F() { x := 1; _ = x }`, 1},
		// 1 + if + && + || = 4; else adds nothing
		{"F", `func F(a, b, c bool) { if a && b || c { } else { } }`, 4},
		// 1 + for + range + if (else if) + if = 5
		{"F", `func F(s []int) { for { break }; for range s { }; if len(s) > 0 { } else if len(s) > 1 { } }`, 5},
		// 1 + two non-default cases (a list of two values is one case) = 3
		{"F", `func F(x int) { switch x { case 1, 2: case 3: default: } }`, 3},
		// 1 + type switch's two non-default cases = 3
		{"F", `func F(x any) { switch x.(type) { case int: case string: default: } }`, 3},
		// 1 + two comm clauses, default not counted = 3
		{"F", `func F(a, b chan int) { select { case <-a: case b <- 1: default: } }`, 3},
		// 1 + the closure's if and its && = 3: literals count toward their function
		{"F", `func F() { f := func(a, b bool) { if a && b { } }; f(true, true) }`, 3},
		// method names as gocyclo prints them; & and | are not boolean operators: 1
		{"(*T).M", `func (t *T) M(a, b int) int { return a & b | a }`, 1},
		{"(T).M", `func (t T[K]) M() { if true { } }`, 2},
		// a package-level function literal is measured under its variable's name: 1 + if = 2
		{"v", `var v = func(a bool) { if a { } }`, 2},
	}
	for _, tc := range cases {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", "package p\n"+tc.src, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.src, err)
		}
		fns := fileComplexities(f)
		if len(fns) != 1 {
			t.Fatalf("%s: found %d functions, want 1", tc.src, len(fns))
		}
		if fns[0].name != tc.name || complexity(fns[0].node) != tc.want {
			t.Errorf("%s: got %s at %d, want %s at %d", tc.src, fns[0].name, complexity(fns[0].node), tc.name, tc.want)
		}
	}
}

// TestComplexityGenerated writes random functions from nested ifs, loops,
// switches, selects, boolean chains and closures, counting the decision
// points as it writes each construct, and checks that parsing the text
// back gives the same count: the counter sees every construct however it
// is nested, and nothing else.
func TestComplexityGenerated(t *testing.T) {
	rng := rand.New(rand.NewSource(36))
	for i := 0; i < 500; i++ {
		g := &genFunc{rng: rng}
		var b strings.Builder
		b.WriteString("package p\nfunc F(a, b, c bool, x int, ch chan int, s []int) {\n")
		g.block(&b, 0)
		b.WriteString("}\n")
		src := b.String()
		f, err := parser.ParseFile(token.NewFileSet(), "gen.go", src, 0)
		if err != nil {
			t.Fatalf("case %d: generated source does not parse: %v\n%s", i, err, src)
		}
		fns := fileComplexities(f)
		if len(fns) != 1 {
			t.Fatalf("case %d: %d functions", i, len(fns))
		}
		if got, want := complexity(fns[0].node), 1+g.points; got != want {
			t.Fatalf("case %d: complexity %d, counted %d while writing:\n%s", i, got, want, src)
		}
	}
}

// genFunc writes random statements and counts their decision points.
type genFunc struct {
	rng    *rand.Rand
	points int
}

func (g *genFunc) block(b *strings.Builder, depth int) {
	n := g.rng.Intn(4)
	for i := 0; i < n; i++ {
		g.stmt(b, depth)
	}
	b.WriteString("_ = x\n")
}

// cond writes a boolean expression of 1 to 4 operands joined by && or ||
// (and sometimes by ==, which is no decision point).
func (g *genFunc) cond(b *strings.Builder) {
	ops := []string{"a", "b", "c", "(x > 1)"}
	b.WriteString(ops[g.rng.Intn(len(ops))])
	for n := g.rng.Intn(4); n > 0; n-- {
		switch g.rng.Intn(3) {
		case 0:
			b.WriteString(" && ")
			g.points++
		case 1:
			b.WriteString(" || ")
			g.points++
		default:
			b.WriteString(" == ")
		}
		b.WriteString(ops[g.rng.Intn(len(ops))])
	}
}

func (g *genFunc) stmt(b *strings.Builder, depth int) {
	if depth > 3 {
		b.WriteString("x++\n")
		return
	}
	switch g.rng.Intn(8) {
	case 0: // if, maybe with else if and else
		g.points++
		b.WriteString("if ")
		g.cond(b)
		b.WriteString(" {\n")
		g.block(b, depth+1)
		b.WriteString("}")
		if g.rng.Intn(2) == 0 {
			g.points++
			b.WriteString(" else if ")
			g.cond(b)
			b.WriteString(" {\n")
			g.block(b, depth+1)
			b.WriteString("}")
		}
		if g.rng.Intn(2) == 0 {
			b.WriteString(" else {\n")
			g.block(b, depth+1)
			b.WriteString("}")
		}
		b.WriteString("\n")
	case 1: // for with a condition
		g.points++
		b.WriteString("for ")
		g.cond(b)
		b.WriteString(" {\n")
		g.block(b, depth+1)
		b.WriteString("break\n}\n")
	case 2: // range
		g.points++
		b.WriteString("for _, v := range s {\n_ = v\n")
		g.block(b, depth+1)
		b.WriteString("}\n")
	case 3: // switch with cases, some with lists, maybe a default
		b.WriteString("switch x {\n")
		for k := 0; k < 1+g.rng.Intn(4); k++ {
			g.points++
			fmt.Fprintf(b, "case %d, %d:\n", 2*k, 2*k+1)
			g.block(b, depth+1)
		}
		if g.rng.Intn(2) == 0 {
			b.WriteString("default:\n")
			g.block(b, depth+1)
		}
		b.WriteString("}\n")
	case 4: // select with receive and send clauses, maybe a default
		b.WriteString("select {\n")
		for k := 0; k < 1+g.rng.Intn(3); k++ {
			g.points++
			if k%2 == 0 {
				b.WriteString("case <-ch:\n")
			} else {
				b.WriteString("case ch <- x:\n")
			}
			g.block(b, depth+1)
		}
		if g.rng.Intn(2) == 0 {
			b.WriteString("default:\n")
		}
		b.WriteString("}\n")
	case 5: // a closure: its points are the function's
		b.WriteString("func() {\n")
		g.block(b, depth+1)
		b.WriteString("}()\n")
	case 6: // a boolean assignment outside any if
		b.WriteString("a = ")
		g.cond(b)
		b.WriteString("\n")
	default: // arithmetic and bit operators are no decision points
		b.WriteString("x = x&1 | x<<2 + x*3\n")
	}
}
