"""What a sample shows: its view plan (plan.py), run by the window through its jobs and by the figures at once."""
