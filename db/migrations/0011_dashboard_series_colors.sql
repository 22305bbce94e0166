-- Per-dashboard colour map (issue 15): each series value seen on the dashboard's charts, with the
-- ordinal of its colour in order of first sight (the app takes it modulo its scheme's length), so a
-- value keeps its colour across the dashboard's tiles, filters and visits.
ALTER TABLE "dashboards" ADD COLUMN "series_colors" jsonb DEFAULT '{}'::jsonb NOT NULL;
