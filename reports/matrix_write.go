package reports

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteMatrix writes matrix.json, matrix.md and matrix.html into dir, each as far as it can: one
// file failing does not keep the others from being written.
func WriteMatrix(dir string, m *Matrix) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	m.SchemaVersion = MatrixSchemaVersion
	if m.Targets == nil {
		m.Targets = []MatrixTarget{}
	}
	if m.Columns == nil {
		m.Columns = []MatrixColumn{}
	}
	if m.Rows == nil {
		m.Rows = []MatrixRow{}
	}
	var errs []error
	write := func(name string, render func() ([]byte, error)) {
		b, err := render()
		if err == nil {
			err = WriteFileAtomic(filepath.Join(dir, name), b, 0o644)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	write(MatrixJSON, func() ([]byte, error) {
		b, err := json.MarshalIndent(m, "", "  ")
		return append(b, '\n'), err
	})
	write(MatrixMD, func() ([]byte, error) { return []byte(m.Markdown()), nil })
	write(MatrixHTML, m.HTML)
	return errors.Join(errs...)
}

// ReadMatrix reads a matrix.json written by WriteMatrix.
func ReadMatrix(path string) (*Matrix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read matrix: %w", err)
	}
	var m Matrix
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if m.SchemaVersion != MatrixSchemaVersion {
		return nil, fmt.Errorf("%s: schemaVersion %d is not supported (this mcpspec reads %d)", path, m.SchemaVersion, MatrixSchemaVersion)
	}
	return &m, nil
}
