-- ehrsql_mimic_iii: derived by build.py from glee4810/EHRSQL (dataset/ehrsql/mimic_iii), MIT-LCP/mimic-code (postgres_add_comments.sql); see README.md

CREATE TABLE "patients" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "gender" VARCHAR(5) NOT NULL,
  "dob" TIMESTAMP NOT NULL,
  "dod" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  UNIQUE ("subject_id")
);

CREATE TABLE "admissions" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "admittime" TIMESTAMP NOT NULL,
  "dischtime" TIMESTAMP,
  "admission_type" VARCHAR(50) NOT NULL,
  "admission_location" VARCHAR(50) NOT NULL,
  "discharge_location" VARCHAR(50),
  "insurance" VARCHAR(255) NOT NULL,
  "language" VARCHAR(10),
  "marital_status" VARCHAR(50),
  "ethnicity" VARCHAR(200) NOT NULL,
  "age" INTEGER NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("hadm_id")
);

CREATE TABLE "d_icd_diagnoses" (
  "row_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "short_title" VARCHAR(50) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd9_code")
);

CREATE TABLE "d_icd_procedures" (
  "row_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "short_title" VARCHAR(50) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd9_code")
);

CREATE TABLE "d_labitems" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "d_items" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200) NOT NULL,
  "linksto" VARCHAR(50) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "diagnoses_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "procedures_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "labevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "charttime" TIMESTAMP,
  "valuenum" DOUBLE PRECISION,
  "valueuom" VARCHAR(20),
  PRIMARY KEY ("row_id")
);

CREATE TABLE "prescriptions" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "startdate" TIMESTAMP NOT NULL,
  "enddate" TIMESTAMP,
  "drug" VARCHAR(100) NOT NULL,
  "dose_val_rx" VARCHAR(120) NOT NULL,
  "dose_unit_rx" VARCHAR(120) NOT NULL,
  "route" VARCHAR(120) NOT NULL,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "cost" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "event_type" VARCHAR(20) NOT NULL,
  "event_id" INTEGER NOT NULL,
  "chargetime" TIMESTAMP NOT NULL,
  "cost" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "chartevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "valuenum" DOUBLE PRECISION,
  "valueuom" VARCHAR(50),
  PRIMARY KEY ("row_id")
);

CREATE TABLE "inputevents_cv" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "amount" DOUBLE PRECISION,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "outputevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "value" DOUBLE PRECISION,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "microbiologyevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "spec_type_desc" VARCHAR(100),
  "org_name" VARCHAR(100),
  PRIMARY KEY ("row_id")
);

CREATE TABLE "icustays" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "first_careunit" VARCHAR(20) NOT NULL,
  "last_careunit" VARCHAR(20) NOT NULL,
  "first_wardid" SMALLINT NOT NULL,
  "last_wardid" SMALLINT NOT NULL,
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "transfers" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER,
  "eventtype" VARCHAR(20) NOT NULL,
  "careunit" VARCHAR(20),
  "wardid" SMALLINT,
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id")
);

COMMENT ON TABLE "patients" IS 'Patients associated with an admission to the ICU.';
COMMENT ON COLUMN "patients"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "patients"."subject_id" IS 'Primary key. Identifies the patient.';
COMMENT ON COLUMN "patients"."gender" IS 'Gender.';
COMMENT ON COLUMN "patients"."dob" IS 'Date of birth.';
COMMENT ON COLUMN "patients"."dod" IS 'Date of death. Null if the patient was alive at least 90 days post hospital discharge.';
COMMENT ON TABLE "admissions" IS 'Hospital admissions associated with an ICU stay.';
COMMENT ON COLUMN "admissions"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "admissions"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "admissions"."hadm_id" IS 'Identifies the hospital stay.';
COMMENT ON COLUMN "admissions"."admittime" IS 'Time of admission to the hospital.';
COMMENT ON COLUMN "admissions"."dischtime" IS 'Time of discharge from the hospital.';
COMMENT ON COLUMN "admissions"."admission_type" IS 'Type of admission, for example emergency or elective.';
COMMENT ON COLUMN "admissions"."admission_location" IS 'Admission location.';
COMMENT ON COLUMN "admissions"."discharge_location" IS 'Discharge location';
COMMENT ON COLUMN "admissions"."insurance" IS 'Insurance type.';
COMMENT ON COLUMN "admissions"."language" IS 'Language.';
COMMENT ON COLUMN "admissions"."marital_status" IS 'Marital status.';
COMMENT ON COLUMN "admissions"."ethnicity" IS 'Ethnicity.';
COMMENT ON TABLE "d_icd_diagnoses" IS 'Dictionary of the International Classification of Diseases, 9th Revision (Diagnoses).';
COMMENT ON COLUMN "d_icd_diagnoses"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "d_icd_diagnoses"."icd9_code" IS 'ICD9 code - note that this is a fixed length character field, as whitespaces are important in uniquely identifying ICD-9 codes.';
COMMENT ON COLUMN "d_icd_diagnoses"."short_title" IS 'Short title associated with the code.';
COMMENT ON COLUMN "d_icd_diagnoses"."long_title" IS 'Long title associated with the code.';
COMMENT ON TABLE "d_icd_procedures" IS 'Dictionary of the International Classification of Diseases, 9th Revision (Procedures).';
COMMENT ON COLUMN "d_icd_procedures"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "d_icd_procedures"."icd9_code" IS 'ICD9 code - note that this is a fixed length character field, as whitespaces are important in uniquely identifying ICD-9 codes.';
COMMENT ON COLUMN "d_icd_procedures"."short_title" IS 'Short title associated with the code.';
COMMENT ON COLUMN "d_icd_procedures"."long_title" IS 'Long title associated with the code.';
COMMENT ON TABLE "d_labitems" IS 'Dictionary of laboratory-related items.';
COMMENT ON COLUMN "d_labitems"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "d_labitems"."itemid" IS 'Foreign key. Identifies the charted item.';
COMMENT ON COLUMN "d_labitems"."label" IS 'Label identifying the item.';
COMMENT ON TABLE "d_items" IS 'Dictionary of non-laboratory-related charted items.';
COMMENT ON COLUMN "d_items"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "d_items"."itemid" IS 'Primary key. Identifies the charted item.';
COMMENT ON COLUMN "d_items"."label" IS 'Label identifying the item.';
COMMENT ON COLUMN "d_items"."linksto" IS 'Table which contains data for the given ITEMID.';
COMMENT ON TABLE "diagnoses_icd" IS 'Diagnoses relating to a hospital admission coded using the ICD9 system.';
COMMENT ON COLUMN "diagnoses_icd"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "diagnoses_icd"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "diagnoses_icd"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "diagnoses_icd"."icd9_code" IS 'ICD9 code for the diagnosis.';
COMMENT ON TABLE "procedures_icd" IS 'Procedures relating to a hospital admission coded using the ICD9 system.';
COMMENT ON COLUMN "procedures_icd"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "procedures_icd"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "procedures_icd"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "procedures_icd"."icd9_code" IS 'ICD9 code associated with the procedure.';
COMMENT ON TABLE "labevents" IS 'Events relating to laboratory tests.';
COMMENT ON COLUMN "labevents"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "labevents"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "labevents"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "labevents"."itemid" IS 'Foreign key. Identifies the charted item.';
COMMENT ON COLUMN "labevents"."charttime" IS 'Time when the event occurred.';
COMMENT ON COLUMN "labevents"."valuenum" IS 'Value of the event as a number.';
COMMENT ON COLUMN "labevents"."valueuom" IS 'Unit of measurement.';
COMMENT ON TABLE "prescriptions" IS 'Medicines prescribed.';
COMMENT ON COLUMN "prescriptions"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "prescriptions"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "prescriptions"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "prescriptions"."startdate" IS 'Date when the prescription started.';
COMMENT ON COLUMN "prescriptions"."enddate" IS 'Date when the prescription ended.';
COMMENT ON COLUMN "prescriptions"."drug" IS 'Name of the drug.';
COMMENT ON COLUMN "prescriptions"."dose_val_rx" IS 'Dose of the drug prescribed.';
COMMENT ON COLUMN "prescriptions"."dose_unit_rx" IS 'Unit of measurement associated with the dose.';
COMMENT ON COLUMN "prescriptions"."route" IS 'Route of administration, for example intravenous or oral.';
COMMENT ON TABLE "chartevents" IS 'Events occurring on a patient chart.';
COMMENT ON COLUMN "chartevents"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "chartevents"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "chartevents"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "chartevents"."icustay_id" IS 'Foreign key. Identifies the ICU stay.';
COMMENT ON COLUMN "chartevents"."itemid" IS 'Foreign key. Identifies the charted item.';
COMMENT ON COLUMN "chartevents"."charttime" IS 'Time when the event occurred.';
COMMENT ON COLUMN "chartevents"."valuenum" IS 'Value of the event as a number.';
COMMENT ON COLUMN "chartevents"."valueuom" IS 'Unit of measurement.';
COMMENT ON TABLE "inputevents_cv" IS 'Events relating to fluid input for patients whose data was originally stored in the CareVue database.';
COMMENT ON COLUMN "inputevents_cv"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "inputevents_cv"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "inputevents_cv"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "inputevents_cv"."icustay_id" IS 'Foreign key. Identifies the ICU stay.';
COMMENT ON COLUMN "inputevents_cv"."charttime" IS 'Time that the input was started or received.';
COMMENT ON COLUMN "inputevents_cv"."itemid" IS 'Foreign key. Identifies the charted item.';
COMMENT ON COLUMN "inputevents_cv"."amount" IS 'Amount of the item administered to the patient.';
COMMENT ON TABLE "outputevents" IS 'Outputs recorded during the ICU stay.';
COMMENT ON COLUMN "outputevents"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "outputevents"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "outputevents"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "outputevents"."icustay_id" IS 'Foreign key. Identifies the ICU stay.';
COMMENT ON COLUMN "outputevents"."charttime" IS 'Time when the output was recorded/occurred.';
COMMENT ON COLUMN "outputevents"."itemid" IS 'Foreign key. Identifies the charted item.';
COMMENT ON COLUMN "outputevents"."value" IS 'Value of the event as a float.';
COMMENT ON TABLE "microbiologyevents" IS 'Events relating to microbiology tests.';
COMMENT ON COLUMN "microbiologyevents"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "microbiologyevents"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "microbiologyevents"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "microbiologyevents"."charttime" IS 'Time when the event occurred, if available.';
COMMENT ON COLUMN "microbiologyevents"."spec_type_desc" IS 'Description of the specimen.';
COMMENT ON COLUMN "microbiologyevents"."org_name" IS 'Name of the organism.';
COMMENT ON TABLE "icustays" IS 'List of ICU admissions.';
COMMENT ON COLUMN "icustays"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "icustays"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "icustays"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "icustays"."icustay_id" IS 'Identifies the ICU stay.';
COMMENT ON COLUMN "icustays"."first_careunit" IS 'First careunit associated with the ICU stay.';
COMMENT ON COLUMN "icustays"."last_careunit" IS 'Last careunit associated with the ICU stay.';
COMMENT ON COLUMN "icustays"."first_wardid" IS 'Identifier for the first ward the patient was located in.';
COMMENT ON COLUMN "icustays"."last_wardid" IS 'Identifier for the last ward the patient is located in.';
COMMENT ON COLUMN "icustays"."intime" IS 'Time of admission to the ICU.';
COMMENT ON COLUMN "icustays"."outtime" IS 'Time of discharge from the ICU.';
COMMENT ON TABLE "transfers" IS 'Location of patients during their hospital stay.';
COMMENT ON COLUMN "transfers"."row_id" IS 'Unique row identifier.';
COMMENT ON COLUMN "transfers"."subject_id" IS 'Foreign key. Identifies the patient.';
COMMENT ON COLUMN "transfers"."hadm_id" IS 'Foreign key. Identifies the hospital stay.';
COMMENT ON COLUMN "transfers"."icustay_id" IS 'Foreign key. Identifies the ICU stay.';
COMMENT ON COLUMN "transfers"."eventtype" IS 'Type of event, for example admission or transfer.';
COMMENT ON COLUMN "transfers"."intime" IS 'Time when the patient was transferred into the unit.';
COMMENT ON COLUMN "transfers"."outtime" IS 'Time when the patient was transferred out of the unit.';
ALTER TABLE "admissions" ADD FOREIGN KEY ("subject_id") REFERENCES "patients" ("subject_id");
ALTER TABLE "diagnoses_icd" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "diagnoses_icd" ADD FOREIGN KEY ("icd9_code") REFERENCES "d_icd_diagnoses" ("icd9_code");
ALTER TABLE "procedures_icd" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "procedures_icd" ADD FOREIGN KEY ("icd9_code") REFERENCES "d_icd_procedures" ("icd9_code");
ALTER TABLE "labevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "labevents" ADD FOREIGN KEY ("itemid") REFERENCES "d_labitems" ("itemid");
ALTER TABLE "prescriptions" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "diagnoses_icd" ("row_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "procedures_icd" ("row_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "labevents" ("row_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "prescriptions" ("row_id");
ALTER TABLE "chartevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
-- join key (referenced column not unique): chartevents(icustay_id) -> icustays(icustay_id)
ALTER TABLE "chartevents" ADD FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid");
ALTER TABLE "inputevents_cv" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
-- join key (referenced column not unique): inputevents_cv(icustay_id) -> icustays(icustay_id)
ALTER TABLE "inputevents_cv" ADD FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid");
ALTER TABLE "outputevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
-- join key (referenced column not unique): outputevents(icustay_id) -> icustays(icustay_id)
ALTER TABLE "outputevents" ADD FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid");
ALTER TABLE "microbiologyevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "icustays" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "transfers" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
