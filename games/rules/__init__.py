"""Pure game engines: no Django import, no clock, no global random."""
