/**
 * Fixed vocabulary of the sample online shop. The loader turns these lists into SQL arrays; the seed uses
 * the countries for the dashboard's country filter, so both always agree.
 */

/** Version of the generated data: bump it when the generator changes, and old copies are rebuilt. */
export const SAMPLE_SHOP_VERSION = '1';
export const SAMPLE_SHOP_SCHEMA = 'sample_shop';
/**
 * The LOGIN role the sample datasource connects as (D32): it owns nothing, may read the shop's tables in
 * the sample database and nothing else. Roles belong to the whole server, so one role serves every
 * sample database on it.
 */
export const SAMPLE_LOGIN_ROLE = 'cairn_sample';
/** The role's password where none is given (local servers and the embedded one only; production sets its own). */
export const DEFAULT_SAMPLE_PASSWORD = 'cairn_sample';
/** The sample database next to the metadata database `<name>`: `<name>_sample`. */
export const SAMPLE_DATABASE_SUFFIX = '_sample';
/** Schema of the sample database that holds Cairn's cancel function (usage for the login role only). */
export const SAMPLE_CONTROL_SCHEMA = 'cairn_control';
/**
 * `(pid integer, tag text) → boolean`: cancels the sample session `pid` only if its application_name is
 * `tag` (a run's random tag). The login role may not call pg_cancel_backend itself (one organization's
 * SQL would cancel another's runs): Cairn cancels sample runs through this.
 */
export const SAMPLE_CANCEL_FUNCTION = `${SAMPLE_CONTROL_SCHEMA}.cancel_run`;

/** The data covers the two years that end on this day (inclusive), so it never changes between loads. */
export const ANCHOR_DATE = '2026-10-31';
/** Start (inclusive) and end (exclusive) of the covered period, in UTC. */
export const PERIOD_START = '2024-11-01 00:00:00+00';
export const PERIOD_END = '2026-11-01 00:00:00+00';

export interface SampleCountry {
  code: string;
  name: string;
  currency: string;
  /** Share of customers and sessions, in percent (the weights add up to 100). */
  weight: number;
  cities: string[];
}

export const SAMPLE_COUNTRIES: readonly SampleCountry[] = [
  { code: 'DE', name: 'Germany', currency: 'EUR', weight: 22, cities: ['Berlin', 'Hamburg', 'Munich', 'Cologne', 'Frankfurt'] },
  { code: 'US', name: 'United States', currency: 'USD', weight: 18, cities: ['New York', 'Chicago', 'San Francisco', 'Austin', 'Seattle'] },
  { code: 'FR', name: 'France', currency: 'EUR', weight: 16, cities: ['Paris', 'Lyon', 'Marseille', 'Toulouse', 'Bordeaux'] },
  { code: 'GB', name: 'United Kingdom', currency: 'GBP', weight: 15, cities: ['London', 'Manchester', 'Birmingham', 'Edinburgh', 'Bristol'] },
  { code: 'NL', name: 'Netherlands', currency: 'EUR', weight: 9, cities: ['Amsterdam', 'Rotterdam', 'Utrecht', 'The Hague', 'Eindhoven'] },
  { code: 'ES', name: 'Spain', currency: 'EUR', weight: 8, cities: ['Madrid', 'Barcelona', 'Valencia', 'Seville', 'Bilbao'] },
  { code: 'SE', name: 'Sweden', currency: 'SEK', weight: 6, cities: ['Stockholm', 'Gothenburg', 'Malmo', 'Uppsala'] },
  { code: 'CH', name: 'Switzerland', currency: 'CHF', weight: 6, cities: ['Zurich', 'Geneva', 'Basel', 'Bern'] },
];

/** Fixed exchange rates: one unit of the currency in euros. */
export const SAMPLE_CURRENCIES: readonly { code: string; name: string; eur_rate: string }[] = [
  { code: 'EUR', name: 'Euro', eur_rate: '1.0000' },
  { code: 'USD', name: 'US Dollar', eur_rate: '0.9200' },
  { code: 'GBP', name: 'Pound Sterling', eur_rate: '1.1700' },
  { code: 'SEK', name: 'Swedish Krona', eur_rate: '0.0880' },
  { code: 'CHF', name: 'Swiss Franc', eur_rate: '1.0600' },
];

/** Product categories with their price range in euros and the things sold in them. */
export const SAMPLE_CATEGORIES: readonly { name: string; min: number; max: number; items: string[] }[] = [
  {
    name: 'Electronics',
    min: 19,
    max: 899,
    items: ['Headphones', 'Smartwatch', 'Speaker', 'Tablet', 'Charger', 'Keyboard', 'Webcam', 'Monitor', 'E-Reader', 'Power Bank'],
  },
  {
    name: 'Home & Kitchen',
    min: 9,
    max: 249,
    items: ['Coffee Maker', 'Knife Set', 'Blender', 'Toaster', 'Frying Pan', 'Kettle', 'Lamp', 'Cushion', 'Mug Set', 'Storage Box'],
  },
  {
    name: 'Books',
    min: 7,
    max: 45,
    items: ['Cookbook', 'Novel', 'Travel Guide', 'Atlas', 'Biography', 'Poetry Collection', 'Comic Album', 'Notebook', 'Calendar', 'Puzzle Book'],
  },
  { name: 'Clothing', min: 12, max: 180, items: ['T-Shirt', 'Hoodie', 'Jeans', 'Rain Jacket', 'Sneakers', 'Scarf', 'Wool Socks', 'Cap', 'Dress', 'Belt'] },
  {
    name: 'Sports & Outdoors',
    min: 9,
    max: 399,
    items: ['Yoga Mat', 'Tent', 'Water Bottle', 'Running Shoes', 'Backpack', 'Bike Light', 'Dumbbells', 'Sleeping Bag', 'Trekking Poles', 'Helmet'],
  },
  {
    name: 'Toys & Games',
    min: 6,
    max: 120,
    items: ['Board Game', 'Puzzle', 'Building Set', 'Plush Bear', 'Card Game', 'Toy Car', 'Kite', 'Doll House', 'Science Kit', 'Wooden Train'],
  },
  {
    name: 'Beauty',
    min: 4,
    max: 80,
    items: ['Face Cream', 'Shampoo', 'Perfume', 'Lip Balm', 'Hair Dryer', 'Soap Set', 'Nail Kit', 'Sunscreen', 'Body Lotion', 'Beard Oil'],
  },
  {
    name: 'Garden',
    min: 8,
    max: 350,
    items: ['Watering Can', 'Hose', 'Plant Pot', 'Pruning Shears', 'Bird Feeder', 'Garden Chair', 'Seed Kit', 'Lantern', 'Rake', 'Compost Bin'],
  },
];
export const PRODUCT_ADJECTIVES = ['Classic', 'Compact', 'Deluxe', 'Eco', 'Essential', 'Nordic', 'Pro', 'Smart', 'Urban', 'Vintage'] as const;

export const FIRST_NAMES = [
  'Anna',
  'Ben',
  'Clara',
  'David',
  'Elena',
  'Felix',
  'Greta',
  'Hugo',
  'Ines',
  'Jonas',
  'Karin',
  'Lukas',
  'Maria',
  'Noah',
  'Olivia',
  'Paul',
  'Quentin',
  'Rosa',
  'Sofia',
  'Tom',
  'Ulla',
  'Victor',
  'Wendy',
  'Xavier',
  'Yara',
  'Zoe',
  'Emma',
  'Liam',
  'Mia',
  'Oscar',
  'Lea',
  'Max',
  'Chloe',
  'Louis',
  'Alice',
  'James',
  'Eva',
  'Lars',
  'Nina',
  'Marco',
] as const;
export const LAST_NAMES = [
  'Muller',
  'Schmidt',
  'Martin',
  'Bernard',
  'Smith',
  'Jones',
  'Johnson',
  'Brown',
  'de Vries',
  'Jansen',
  'Garcia',
  'Lopez',
  'Andersson',
  'Johansson',
  'Meier',
  'Keller',
  'Weber',
  'Dubois',
  'Moreau',
  'Taylor',
  'Wilson',
  'Davis',
  'Bakker',
  'Visser',
  'Martinez',
  'Sanchez',
  'Nilsson',
  'Larsson',
  'Huber',
  'Fischer',
  'Laurent',
  'Evans',
  'Clark',
  'Miller',
  'Smit',
  'Romero',
  'Berg',
  'Frei',
  'Wagner',
  'Roux',
] as const;

export const SAMPLE_SIZES = {
  customers: 8000,
  web_sessions: 60000,
} as const;
