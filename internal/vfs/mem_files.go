package vfs

// ReadFile returns the contents of the file name.
func (m *Mem) ReadFile(name string) ([]byte, error) {
	f, err := m.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return nil, err
	}
	b := make([]byte, size)
	_, err = f.ReadAt(b, 0)
	return b, err
}

// WriteFile makes the file name hold b, synced.
func (m *Mem) WriteFile(name string, b []byte) error {
	f, err := m.Create(name)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return err
	}
	return f.Sync()
}
