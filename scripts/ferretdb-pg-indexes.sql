-- Gives every FerretDB table in this PostgreSQL database GIN indexes that serve the equalities FerretDB
-- pushes down. FerretDB 1.24 pushes a top-level equality on a scalar down as `_jsonb -> 'field' @> $1`,
-- which its own btree indexes on `(_jsonb -> 'field')` cannot serve, so without these every such
-- statement scans the whole collection:
-- - `_id`: each by-id read and update (37 ms per statement at 50,000 documents here, 3 ms with it);
-- - `tenantId`: a tenant's lists (`executions` and `jobs` pages, counts), which FerretDB otherwise
--   answers by reading every tenant's rows (bench:scale's history case; figures in docs/performance.md);
-- - `occurrenceKey` (executions only): the leader's look-up of occurrences already inserted;
-- - `labelPairs` and `externalKey` (jobs only): a tenant's jobs by label (an array of `key=value`
--   strings, which `@>` matches when it contains the value) and by external id.
-- MongoDB answers both from its own indexes; this makes the local server behave alike. FerretDB
-- does not know of these indexes (it lists indexes from its own metadata) and drops them with the
-- table. Run by scripts/services.sh and scripts/chaos.sh with psql; idempotent, in one transaction so
-- that a table created meanwhile by another process still gets its indexes.
begin;

-- Without fastupdate: with it, a GIN index queues new entries in a pending list that every search
-- reads whole until vacuum merges it, so one tenant's inserts (thousands between autovacuums) made
-- every other tenant's list and by-id statement slower (bench:neighbours).
create or replace function kairos_ferretdb_gin_index(tbl regclass, field text) returns void language plpgsql as $$
declare existing regclass;
begin
  if not exists (select 1 from pg_attribute where attrelid = tbl and attname = '_jsonb' and not attisdropped) then
    return;
  end if;
  select i.indexrelid::regclass into existing from pg_index i where i.indrelid = tbl
    and pg_get_indexdef(i.indexrelid) like format('%%USING gin ((_jsonb -> %L::text) jsonb_path_ops)%%', field) limit 1;
  if existing is null then
    execute format('create index on %s using gin ((_jsonb -> %L) jsonb_path_ops) with (fastupdate = off)', tbl, field);
  elsif not coalesce((select 'fastupdate=off' = any(reloptions) from pg_class where oid = existing), false) then
    -- An index made by an earlier version of this file; entries already pending wait for vacuum.
    execute format('alter index %s set (fastupdate = off)', existing);
  end if;
end $$;

create or replace function kairos_ferretdb_gin_indexes(tbl regclass) returns void language plpgsql as $$
begin
  perform kairos_ferretdb_gin_index(tbl, '_id');
  perform kairos_ferretdb_gin_index(tbl, 'tenantId');
  -- The leader's look-up of occurrences a repeated pass finds already inserted (schedulerStore.ts).
  if (select relname from pg_class where oid = tbl) like 'executions\_%' then
    perform kairos_ferretdb_gin_index(tbl, 'occurrenceKey');
  end if;
  -- The jobs filters by label and by external id (jobStore.ts, listFilter and findByExternalId).
  if (select relname from pg_class where oid = tbl) like 'jobs\_%' then
    perform kairos_ferretdb_gin_index(tbl, 'labelPairs');
    perform kairos_ferretdb_gin_index(tbl, 'externalKey');
  end if;
end $$;

create or replace function kairos_ferretdb_id_index_on_create() returns event_trigger language plpgsql as $$
declare obj record;
begin
  for obj in select * from pg_event_trigger_ddl_commands() where command_tag = 'CREATE TABLE' and object_type = 'table' loop
    perform kairos_ferretdb_gin_indexes(obj.objid::regclass);
  end loop;
end $$;

drop event trigger if exists kairos_ferretdb_id_index;
create event trigger kairos_ferretdb_id_index on ddl_command_end when tag in ('CREATE TABLE')
  execute function kairos_ferretdb_id_index_on_create();

-- The single-index function of the first version of this file.
drop function if exists kairos_ferretdb_id_index(regclass);

-- Tables made before the trigger existed.
do $$
declare t regclass;
begin
  for t in select c.oid::regclass from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') loop
    perform kairos_ferretdb_gin_indexes(t);
  end loop;
end $$;
commit;
