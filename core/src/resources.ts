/** Shapes of structured resource attributes, shared by the schema, the API and the app. */

/** A tile of a dashboard's layout on the 12-column grid. */
export interface LayoutTile {
  type: 'report';
  id: string;
  row: number;
  column: number;
  width: number;
  height: number;
}

export interface TimeZoneConfig {
  type: 'disabled' | 'organization' | 'fixed' | 'input';
  fixed_time_zone?: string | null;
  allowed_time_zones?: string[] | null;
}

export interface FiltersConfiguration {
  apply_immediately?: boolean;
  aggregation_options?: string[];
  filter_sorting?: string[];
  hidden_parameters?: string[];
}
