"""The LogCA and Accelerometer pages' own code: accelerator sources, views, figures, fields."""
