-- Executions recorded by the Durable Objects stored their parameters as a JSON string holding the object
-- (the insert typed its text parameter as jsonb, and postgres.js encoded it again): store the object.
-- Executions live 24 hours, so this touches at most a day of rows.
UPDATE executions SET parameters = (parameters #>> '{}')::jsonb WHERE jsonb_typeof(parameters) = 'string';
