-- ehrsql_mimic_iv: derived by build.py from glee4810/ehrsql-2024 (data/mimic_iv), MIT-LCP/mimic-website (content/en/docs/IV/modules); see README.md

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
  "age" INTEGER NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("hadm_id")
);

CREATE TABLE "d_icd_diagnoses" (
  "row_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd_code")
);

CREATE TABLE "d_icd_procedures" (
  "row_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd_code")
);

CREATE TABLE "d_labitems" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200),
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "d_items" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200) NOT NULL,
  "abbreviation" VARCHAR(200) NOT NULL,
  "linksto" VARCHAR(50) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "diagnoses_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id")
);

CREATE TABLE "procedures_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd_code" VARCHAR(10) NOT NULL,
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
  "starttime" TIMESTAMP NOT NULL,
  "stoptime" TIMESTAMP,
  "drug" VARCHAR(255) NOT NULL,
  "dose_val_rx" VARCHAR(100) NOT NULL,
  "dose_unit_rx" VARCHAR(50) NOT NULL,
  "route" VARCHAR(50) NOT NULL,
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
  "stay_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "valuenum" DOUBLE PRECISION,
  "valueuom" VARCHAR(50),
  PRIMARY KEY ("row_id")
);

CREATE TABLE "inputevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "stay_id" INTEGER NOT NULL,
  "starttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "totalamount" DOUBLE PRECISION,
  "totalamountuom" VARCHAR(50),
  PRIMARY KEY ("row_id")
);

CREATE TABLE "outputevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "stay_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "value" DOUBLE PRECISION,
  "valueuom" VARCHAR(50),
  PRIMARY KEY ("row_id")
);

CREATE TABLE "microbiologyevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "spec_type_desc" VARCHAR(100),
  "test_name" VARCHAR(100),
  "org_name" VARCHAR(100),
  PRIMARY KEY ("row_id")
);

CREATE TABLE "icustays" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "stay_id" INTEGER NOT NULL,
  "first_careunit" VARCHAR(20) NOT NULL,
  "last_careunit" VARCHAR(20) NOT NULL,
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  UNIQUE ("stay_id")
);

CREATE TABLE "transfers" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "transfer_id" INTEGER NOT NULL,
  "eventtype" VARCHAR(20) NOT NULL,
  "careunit" VARCHAR(20),
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id")
);

COMMENT ON TABLE "patients" IS 'Patients'' gender, age, and date of death if information exists.';
COMMENT ON COLUMN "patients"."subject_id" IS 'subject_id is a unique identifier which specifies an individual patient. Any rows associated with a single subject_id pertain to the same individual. As subject_id is the primary key for the table, it is unique for each row.';
COMMENT ON COLUMN "patients"."gender" IS 'gender is the genotypical sex of the patient.';
COMMENT ON COLUMN "patients"."dod" IS 'The de-identified date of death for the patient. Date of death is extracted from two sources: the hospital information system and the Massachusetts State Registry of Vital Records and Statistics.';
COMMENT ON TABLE "admissions" IS 'Detailed information about hospital stays.';
COMMENT ON COLUMN "admissions"."subject_id" IS 'Each row of this table contains a unique hadm_id, which represents a single patient''s admission to the hospital. hadm_id ranges from 2000000 - 2999999. It is possible for this table to have duplicate subject_id, indicating that a single patient had multiple admissions to the hospital.';
COMMENT ON COLUMN "admissions"."hadm_id" IS 'Each row of this table contains a unique hadm_id, which represents a single patient''s admission to the hospital. hadm_id ranges from 2000000 - 2999999. It is possible for this table to have duplicate subject_id, indicating that a single patient had multiple admissions to the hospital.';
COMMENT ON COLUMN "admissions"."admittime" IS 'admittime provides the date and time the patient was admitted to the hospital, while dischtime provides the date and time the patient was discharged from the hospital. If applicable, deathtime provides the time of in-hospital death for the patient.';
COMMENT ON COLUMN "admissions"."dischtime" IS 'admittime provides the date and time the patient was admitted to the hospital, while dischtime provides the date and time the patient was discharged from the hospital. If applicable, deathtime provides the time of in-hospital death for the patient.';
COMMENT ON COLUMN "admissions"."admission_type" IS 'admission_type is useful for classifying the urgency of the admission. There are 9 possibilities: ''AMBULATORY OBSERVATION'', ''DIRECT EMER.'', ''DIRECT OBSERVATION'', ''ELECTIVE'', ''EU OBSERVATION'', ''EW EMER.'', ''OBSERVATION ADMIT'', ''SURGICAL SAME DAY ADMISSION'', ''URGENT''.';
COMMENT ON COLUMN "admissions"."admission_location" IS 'admission_location provides information about the location of the patient prior to arriving at the hospital. Note that as the emergency room is technically a clinic, patients who are admitted via the emergency room usually have it as their admission location.';
COMMENT ON COLUMN "admissions"."discharge_location" IS 'admission_location provides information about the location of the patient prior to arriving at the hospital. Note that as the emergency room is technically a clinic, patients who are admitted via the emergency room usually have it as their admission location.';
COMMENT ON COLUMN "admissions"."insurance" IS 'The insurance, language, marital_status, and ethnicity columns provide information about patient demographics for the given hospitalization. Note that as this data is documented for each hospital admission, they may change from stay to stay.';
COMMENT ON COLUMN "admissions"."language" IS 'The insurance, language, marital_status, and ethnicity columns provide information about patient demographics for the given hospitalization. Note that as this data is documented for each hospital admission, they may change from stay to stay.';
COMMENT ON COLUMN "admissions"."marital_status" IS 'The insurance, language, marital_status, and ethnicity columns provide information about patient demographics for the given hospitalization. Note that as this data is documented for each hospital admission, they may change from stay to stay.';
COMMENT ON TABLE "d_icd_diagnoses" IS 'Dimension table for *diagnoses_icd*; provides a description of ICD-9/ICD-10 billed diagnoses.';
COMMENT ON COLUMN "d_icd_diagnoses"."icd_code" IS 'icd_code is the International Coding Definitions (ICD) code.';
COMMENT ON COLUMN "d_icd_diagnoses"."long_title" IS 'The long_title provides the meaning of the ICD code. For example, the ICD-9 code 0010 has long_title "Cholera due to vibrio cholerae".';
COMMENT ON TABLE "d_icd_procedures" IS 'Dimension table for *procedures_icd*; provides a description of ICD-9/ICD-10 billed procedures.';
COMMENT ON COLUMN "d_icd_procedures"."icd_code" IS 'icd_code is the International Coding Definitions (ICD) code.';
COMMENT ON COLUMN "d_icd_procedures"."long_title" IS 'The title fields provide a brief definition for the given procedure code in .';
COMMENT ON TABLE "d_labitems" IS 'Dimension table for *labevents* provides a description of all lab items.';
COMMENT ON COLUMN "d_labitems"."itemid" IS 'A unique identifier for a laboratory concept. itemid is unique to each row, and can be used to identify data in labevents associated with a specific concept.';
COMMENT ON COLUMN "d_labitems"."label" IS 'The label column describes the concept which is represented by the itemid.';
COMMENT ON TABLE "d_items" IS 'Dimension table describing itemid. Defines concepts recorded in the events table in the ICU module.';
COMMENT ON COLUMN "d_items"."itemid" IS 'As an alternate primary key to the table, itemid is unique to each row.';
COMMENT ON COLUMN "d_items"."label" IS 'The label column describes the concept which is represented by the itemid. The abbreviation column, only available in Metavision, lists a common abbreviation for the label.';
COMMENT ON COLUMN "d_items"."abbreviation" IS 'The label column describes the concept which is represented by the itemid. The abbreviation column, only available in Metavision, lists a common abbreviation for the label.';
COMMENT ON COLUMN "d_items"."linksto" IS 'linksto provides the table name which the data links to. For example, a value of ''chartevents'' indicates that the itemid of the given row is contained in CHARTEVENTS.';
COMMENT ON TABLE "diagnoses_icd" IS 'Billed ICD-9/ICD-10 diagnoses for hospitalizations.';
COMMENT ON COLUMN "diagnoses_icd"."subject_id" IS '{{% include "/static/include/subject_id.md" %}}';
COMMENT ON COLUMN "diagnoses_icd"."hadm_id" IS '{{% include "/static/include/hadm_id.md" %}}';
COMMENT ON COLUMN "diagnoses_icd"."icd_code" IS 'icd_code is the International Coding Definitions (ICD) code.';
COMMENT ON TABLE "procedures_icd" IS 'Billed procedures for patients during their hospital stay.';
COMMENT ON COLUMN "procedures_icd"."subject_id" IS '{{% include "/static/include/subject_id.md" %}}';
COMMENT ON COLUMN "procedures_icd"."hadm_id" IS '{{% include "/static/include/hadm_id.md" %}}';
COMMENT ON COLUMN "procedures_icd"."icd_code" IS 'icd_code is the International Coding Definitions (ICD) code.';
COMMENT ON TABLE "labevents" IS 'Laboratory measurements sourced from patient derived specimens.';
COMMENT ON COLUMN "labevents"."subject_id" IS '{{% include "/static/include/subject_id.md" %}}';
COMMENT ON COLUMN "labevents"."hadm_id" IS '{{% include "/static/include/hadm_id.md" %}}';
COMMENT ON COLUMN "labevents"."itemid" IS 'An identifier which uniquely denotes laboratory concepts.';
COMMENT ON COLUMN "labevents"."charttime" IS 'The time at which the laboratory measurement was charted. This is usually the time at which the specimen was acquired, and is usually significantly earlier than the time at which the measurement is available.';
COMMENT ON COLUMN "labevents"."valuenum" IS 'The result of the laboratory measurement and, if it is numeric, the value cast as a numeric data type.';
COMMENT ON COLUMN "labevents"."valueuom" IS 'The unit of measurement for the laboratory concept.';
COMMENT ON TABLE "prescriptions" IS 'Prescribed medications.';
COMMENT ON COLUMN "prescriptions"."subject_id" IS '{{% include "/static/include/subject_id.md" %}}';
COMMENT ON COLUMN "prescriptions"."hadm_id" IS '{{% include "/static/include/hadm_id.md" %}}';
COMMENT ON COLUMN "prescriptions"."starttime" IS 'The prescribed start and stop time for the medication.';
COMMENT ON COLUMN "prescriptions"."stoptime" IS 'The prescribed start and stop time for the medication.';
COMMENT ON COLUMN "prescriptions"."drug" IS 'A free-text description of the medication administered.';
COMMENT ON COLUMN "prescriptions"."dose_val_rx" IS 'The prescribed dose for the patient intended to be administered over the given time period.';
COMMENT ON COLUMN "prescriptions"."dose_unit_rx" IS 'The unit of measurement for the dose.';
COMMENT ON COLUMN "prescriptions"."route" IS 'The route of administration for the medication.';
COMMENT ON TABLE "chartevents" IS 'Charted items occurring during the ICU stay. Contains the majority of information documented in the ICU. --- # The chartevents table Table source: MetaVision ICU database. Table purpose: Contains all charted data for all patients. Number of rows: 313,645,063 Links to: * patients on subject_id';
COMMENT ON COLUMN "chartevents"."subject_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay. More information about these identifiers is available here.';
COMMENT ON COLUMN "chartevents"."hadm_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay. More information about these identifiers is available here.';
COMMENT ON COLUMN "chartevents"."stay_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay. More information about these identifiers is available here.';
COMMENT ON COLUMN "chartevents"."itemid" IS 'Identifier for a single measurement type in the database. Each row associated with one itemid (e.g. 220045) corresponds to an instantiation of the same measurement (e.g. heart rate).';
COMMENT ON COLUMN "chartevents"."charttime" IS 'charttime records the time at which an observation was made, and is usually the closest proxy to the time the data was actually measured. storetime records the time at which an observation was manually input or manually validated by a member of the clinical staff.';
COMMENT ON COLUMN "chartevents"."valuenum" IS 'value contains the value measured for the concept identified by the itemid. If this value is numeric, then valuenum contains the same data in a numeric format. If this data is not numeric, valuenum is null. In some cases (e.g.';
COMMENT ON COLUMN "chartevents"."valueuom" IS 'valueuom is the unit of measurement for the value, if appropriate.';
COMMENT ON TABLE "inputevents" IS 'Information documented regarding continuous infusions or intermittent administrations.';
COMMENT ON COLUMN "inputevents"."subject_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.';
COMMENT ON COLUMN "inputevents"."hadm_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.';
COMMENT ON COLUMN "inputevents"."stay_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.';
COMMENT ON COLUMN "inputevents"."starttime" IS 'starttime and endtime record the start and end time of an input/output event.';
COMMENT ON COLUMN "inputevents"."itemid" IS 'Identifier for a single measurement type in the database. Each row associated with one itemid which corresponds to an instantiation of the same measurement (e.g. norepinephrine).';
COMMENT ON COLUMN "inputevents"."totalamount" IS 'Intravenous administrations are usually given by hanging a bag of fluid at the bedside for continuous infusion over a certain period of time. These columns list the total amount of the fluid in the bag containing the solution.';
COMMENT ON COLUMN "inputevents"."totalamountuom" IS 'Intravenous administrations are usually given by hanging a bag of fluid at the bedside for continuous infusion over a certain period of time. These columns list the total amount of the fluid in the bag containing the solution.';
COMMENT ON TABLE "outputevents" IS 'Information regarding patient outputs including urine, drainage, and so on.';
COMMENT ON COLUMN "outputevents"."subject_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.';
COMMENT ON COLUMN "outputevents"."hadm_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.';
COMMENT ON COLUMN "outputevents"."stay_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ICU stay.';
COMMENT ON COLUMN "outputevents"."charttime" IS 'charttime is the time of an output event.';
COMMENT ON COLUMN "outputevents"."itemid" IS 'Identifier for a single measurement type in the database. Each row associated with one itemid (e.g. 212) corresponds to an instantiation of the same measurement (e.g. heart rate).';
COMMENT ON COLUMN "outputevents"."value" IS 'value and valueuom list the amount of a substance at the charttime (when the exact start time is unknown, but usually up to an hour before).';
COMMENT ON COLUMN "outputevents"."valueuom" IS 'value and valueuom list the amount of a substance at the charttime (when the exact start time is unknown, but usually up to an hour before).';
COMMENT ON TABLE "microbiologyevents" IS 'Microbiology cultures.';
COMMENT ON COLUMN "microbiologyevents"."subject_id" IS '{{% include "/static/include/subject_id.md" %}}';
COMMENT ON COLUMN "microbiologyevents"."hadm_id" IS '{{% include "/static/include/hadm_id.md" %}}';
COMMENT ON COLUMN "microbiologyevents"."charttime" IS 'charttime records the time at which an observation was charted, and is usually the closest proxy to the time the data was actually measured. chartdate is the same as charttime, except there is no time available.';
COMMENT ON COLUMN "microbiologyevents"."spec_type_desc" IS 'The specimen which is tested for bacterial growth. The specimen is a sample derived from a patient; e.g. blood, urine, sputum, etc.';
COMMENT ON COLUMN "microbiologyevents"."test_name" IS 'The test performed on the given specimen.';
COMMENT ON COLUMN "microbiologyevents"."org_name" IS 'The organism, if any, which grew when tested. If NULL, no organism grew (i.e. a negative culture).';
COMMENT ON TABLE "icustays" IS 'Tracking information for ICU stays including admission and discharge times.';
COMMENT ON COLUMN "icustays"."subject_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay.';
COMMENT ON COLUMN "icustays"."hadm_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay.';
COMMENT ON COLUMN "icustays"."stay_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay and stay_id is unique to a patient ward stay.';
COMMENT ON COLUMN "icustays"."first_careunit" IS 'FIRST_CAREUNIT and LAST_CAREUNIT contain, respectively, the first and last ICU type in which the patient was cared for. As an stay_id groups all ICU admissions within 24 hours of each other, it is possible for a patient to be transferred from one type of ICU to another and have the same stay_id.';
COMMENT ON COLUMN "icustays"."last_careunit" IS 'FIRST_CAREUNIT and LAST_CAREUNIT contain, respectively, the first and last ICU type in which the patient was cared for. As an stay_id groups all ICU admissions within 24 hours of each other, it is possible for a patient to be transferred from one type of ICU to another and have the same stay_id.';
COMMENT ON COLUMN "icustays"."intime" IS 'INTIME provides the date and time the patient was transferred into the ICU. OUTTIME provides the date and time the patient was transferred out of the ICU.';
COMMENT ON COLUMN "icustays"."outtime" IS 'INTIME provides the date and time the patient was transferred into the ICU. OUTTIME provides the date and time the patient was transferred out of the ICU.';
COMMENT ON TABLE "transfers" IS 'Detailed information about patients'' unit transfers.';
COMMENT ON COLUMN "transfers"."subject_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay, and transfer_id is unique to a patient physical location.';
COMMENT ON COLUMN "transfers"."hadm_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay, and transfer_id is unique to a patient physical location.';
COMMENT ON COLUMN "transfers"."transfer_id" IS 'Identifiers which specify the patient: subject_id is unique to a patient, hadm_id is unique to a patient hospital stay, and transfer_id is unique to a patient physical location.';
COMMENT ON COLUMN "transfers"."eventtype" IS 'eventtype describes what transfer event occurred: ''ed'' for an emergency department stay, ''admit'' for an admission to the hospital, ''transfer'' for an intra-hospital transfer and ''discharge'' for a discharge from the hospital.';
COMMENT ON COLUMN "transfers"."careunit" IS 'The type of unit or ward in which the patient is physically located. Examples of care units include medical ICUs, surgical ICUs, medical wards, new baby nurseries, and so on.';
COMMENT ON COLUMN "transfers"."intime" IS 'intime provides the date and time the patient was transferred into the current care unit (careunit) from the previous care unit. outtime provides the date and time the patient was transferred out of the current physical location.';
COMMENT ON COLUMN "transfers"."outtime" IS 'intime provides the date and time the patient was transferred into the current care unit (careunit) from the previous care unit. outtime provides the date and time the patient was transferred out of the current physical location.';
ALTER TABLE "admissions" ADD FOREIGN KEY ("subject_id") REFERENCES "patients" ("subject_id");
ALTER TABLE "diagnoses_icd" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "diagnoses_icd" ADD FOREIGN KEY ("icd_code") REFERENCES "d_icd_diagnoses" ("icd_code");
ALTER TABLE "procedures_icd" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "procedures_icd" ADD FOREIGN KEY ("icd_code") REFERENCES "d_icd_procedures" ("icd_code");
ALTER TABLE "labevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "labevents" ADD FOREIGN KEY ("itemid") REFERENCES "d_labitems" ("itemid");
ALTER TABLE "prescriptions" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "diagnoses_icd" ("row_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "procedures_icd" ("row_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "labevents" ("row_id");
ALTER TABLE "cost" ADD FOREIGN KEY ("event_id") REFERENCES "prescriptions" ("row_id");
ALTER TABLE "chartevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "chartevents" ADD FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id");
ALTER TABLE "chartevents" ADD FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid");
ALTER TABLE "inputevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "inputevents" ADD FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id");
ALTER TABLE "inputevents" ADD FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid");
ALTER TABLE "outputevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "outputevents" ADD FOREIGN KEY ("stay_id") REFERENCES "icustays" ("stay_id");
ALTER TABLE "outputevents" ADD FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid");
ALTER TABLE "microbiologyevents" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "icustays" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
ALTER TABLE "transfers" ADD FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id");
